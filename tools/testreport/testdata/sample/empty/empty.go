// Package empty has no tests.
package empty
