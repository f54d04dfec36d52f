package main

import (
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
)

// TestDocs_commandLine checks the documentation's Command line table
// against the command line: a row for every command, each row naming
// every flag that the command's -h lists, and no flag that it does not.
// The engineers' commands (soak, bench) are ontolab's, checked by its
// own test.
func TestDocs_commandLine(t *testing.T) {
	var commands [][]string
	for _, c := range commandTable() {
		commands = append(commands, []string{c.Name})
	}
	commandtest.CheckDocumented(t, "../..", "indexer", commands, run)
}
