// A program of another table: built GOARCH=386, every call it makes is a 32-bit x86 one. It
// prints one line when its calls work; under the filter they get ENOSYS and it cannot.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("32-bit calls work: pid %d\n", os.Getpid())
}
