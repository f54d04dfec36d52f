//go:build !unix

package store

import "os"

// unlock: elsewhere bbolt's lock ends with the file's handle.
func unlock(*os.File) {}
