// Package bridge is `computerd stdio`: stdin and stdout joined to init's socket, byte for
// byte. It never serves on its own.
package bridge
