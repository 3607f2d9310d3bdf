package initd

// dropPrivileges is filled in by the privilege drop; until then init runs as it was started.
func dropPrivileges(user, socket string) error { return nil }
