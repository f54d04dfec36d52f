// Package pgserver runs a throwaway PostgreSQL server for benchmarks and
// tests: it finds the server binaries of a local installation (the Debian
// postgresql package puts them in /usr/lib/postgresql/<version>/bin),
// initializes a cluster in a fresh temporary directory, starts it on a free
// loopback port with its unix socket in that directory, and waits until it
// accepts connections. Stop shuts it down and removes the directory.
//
//	srv, err := pgserver.Start(ctx, pgserver.Options{})
//	if errors.Is(err, pgserver.ErrNotFound) {
//		// no PostgreSQL on this machine
//	}
//	defer srv.Stop()
//	pool, err := pgxpool.New(ctx, srv.URL("postgres"))
//
// PostgreSQL refuses to run as root. When the calling process is root, the
// cluster is initialized and served as another OS user (Options.RunAs,
// default "postgres", which the Debian package creates): the directory is
// handed to that user, and initdb and postgres run with its credentials.
// That user must be able to reach Options.Parent, which is why the default
// is the system temporary directory rather than a test's private one.
//
// The cluster is created with trust authentication for the superuser
// "postgres" on loopback only, UTF-8 and the C locale; it is meant to be
// thrown away, not to hold data anyone keeps. Server settings are
// PostgreSQL's defaults unless Options.Settings overrides them.
package pgserver
