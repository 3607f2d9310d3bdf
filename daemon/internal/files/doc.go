// Package files is files.* and tar.*: paths resolved as the daemon's user, files opened first
// and checked after (fstat on the descriptor), pushes confined to their directory one name at
// a time from its descriptor.
package files
