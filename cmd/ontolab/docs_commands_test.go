package main

import (
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
)

// TestDocs_commandLine checks the documentation's Command line table
// against ontolab's command line: a row for every command and subcommand
// (bench floor excepted: bench search starts it), each row naming every
// flag that the command's -h lists, and no flag that it does not.
func TestDocs_commandLine(t *testing.T) {
	commands := [][]string{{"bench", "search"}, {"bench", "subscribe"}, {"bench", "opensearch"}, {"bench", "interface"}, {"bench", "geo"}, {"bench", "vector"}}
	for _, c := range commandTable() {
		commands = append(commands, []string{c.Name})
	}
	commandtest.CheckDocumented(t, "../..", "ontolab", commands, run)
}
