// Package isolate is what `computerd init --own-network` adds before and after the privilege
// drop: it refuses uid 0 and a uid another process holds, moves every thread of init into a
// network namespace of its own with its loopback up and reads that back, and installs, on
// every thread, the seccomp filter that refuses vsock sockets and io_uring and gives ENOSYS to
// every call of another architecture or table. Each read-back is judged by a pure function of
// what /proc says (status files through privdrop's parser, the threads' namespace links, the
// interfaces), so tests feed it text; the filter is a table of BPF instructions tests hold for
// both architectures.
package isolate
