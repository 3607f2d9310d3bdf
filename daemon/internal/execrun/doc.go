// Package execrun is exec.run: one program under its own guard, its output kept up to a bound,
// its end reported, nothing it started left behind.
package execrun
