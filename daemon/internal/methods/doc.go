// Package methods wires every method's handler to its name: one daemon state shared by all
// connections, one session per connection. The handlers and their types live with their code.
package methods
