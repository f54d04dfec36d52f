package catalogs

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/apache/iceberg-go/catalog/rest"
)

// restError is a failed request to a REST catalog said plainly: which
// catalog, at which address, and what to check. It unwraps to the
// request's error.
type restError struct {
	msg string
	err error
}

func (e *restError) Error() string { return e.msg }
func (e *restError) Unwrap() error { return e.err }

// explainREST says err, from catalog name of type rest, as a restError when
// it is the catalog's (or its OAuth2 server's) doing: unreachable, a
// refused token or client, a server error. Storage errors (a path in
// err) and others are returned as they are: config.Explain says those.
func explainREST(name string, props map[string]string, err error) error {
	if err == nil || props["type"] != "rest" {
		return err
	}
	var already *restError
	var pe *fs.PathError
	if errors.As(err, &already) || errors.As(err, &pe) {
		return err
	}
	at := fmt.Sprintf("REST catalog %s at %s", name, props["uri"])
	var op *net.OpError
	var dns *net.DNSError
	var msg string
	switch {
	case errors.Is(err, rest.ErrOAuthError):
		server := props["oauth2-server-uri"]
		if server == "" {
			server = strings.TrimSuffix(props["uri"], "/") + "/v1/oauth/tokens"
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			msg = fmt.Sprintf("the OAuth2 server at %s of catalog %s is unreachable (connection refused)", server, name)
			break
		}
		// The OAuth2 error (invalid_client: description) is what the
		// catalog request's url.Error wraps.
		detail := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			detail = ue.Err.Error()
		}
		msg = fmt.Sprintf("the OAuth2 server at %s refused the client of catalog %s (%s: check its credential, scope and oauth2-server-uri)", server, name, detail)
	case refusedToken(err):
		msg = fmt.Sprintf("%s refused the token (%v: check its token, or credential and oauth2-server-uri)", at, err)
	case errors.Is(err, rest.ErrForbidden):
		msg = fmt.Sprintf("%s forbids it (%v: check the grants of its principal)", at, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = at + " is unreachable (connection refused)"
	case errors.As(err, &dns):
		msg = fmt.Sprintf("%s is unreachable (%s)", at, dns.Error())
	case errors.As(err, &op):
		msg = fmt.Sprintf("%s is unreachable (%s)", at, op.Err.Error())
	case errors.Is(err, rest.ErrServiceUnavailable), errors.Is(err, rest.ErrServerError):
		msg = fmt.Sprintf("%s failed (%v)", at, err)
	default:
		return err
	}
	return &restError{msg: msg, err: err}
}

// refusedToken tells whether err is a REST catalog's refusal of the token
// (401, or 419 for an expired one).
func refusedToken(err error) bool {
	return errors.Is(err, rest.ErrUnauthorized) || errors.Is(err, rest.ErrAuthorizationExpired)
}
