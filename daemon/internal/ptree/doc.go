// Package ptree reads the process tree from /proc: who is under whom, in which group and
// session, so a guard or init can end everything under it.
package ptree
