// Package safepath walks a path one name at a time from the root's descriptor, never through
// a symbolic link (openat with O_NOFOLLOW|O_DIRECTORY), making missing directories on the way
// when asked. No path is checked and then used by name.
package safepath
