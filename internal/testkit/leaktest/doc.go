// Package leaktest finds a secret in a running program's values: Find
// walks everything reachable from a value (pointers, interfaces, struct
// fields exported or not, slices, arrays and maps) and reports the first
// string or byte slice that holds the secret. The API and serve tests use
// it to prove that a token given in plain text is kept only as its
// SHA-256 digest once the server runs. It is for tests only.
package leaktest
