// Package cli is the command-line machinery the two commands share:
// `indexer`, the product, and `ontolab`, the engineers' tool. A Program
// is a name and a table of Commands; Main dispatches to one, and usage
// lists them. Each command parses its flags with NewFlags and Parse, which
// report errors and -h to the Env instead of exiting, so that tests run
// commands in-process with buffers. The exit codes are the same in both
// commands.
package cli
