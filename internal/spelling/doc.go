// Package spelling finds the known names closest to a misspelt one, so
// that an error about an unknown name can say which name was meant (API
// errors for unknown properties, config errors for unknown keys).
package spelling
