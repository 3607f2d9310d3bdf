module agentrun.dev/computerd

go 1.24
