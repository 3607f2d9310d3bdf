// Package privdrop leaves the daemon no capability in any set, on every thread, and reads it
// back: no_new_privs, the bounding set emptied, the uid change (with --user), the ambient set
// cleared and the effective, permitted and inheritable sets emptied by capset.
package privdrop
