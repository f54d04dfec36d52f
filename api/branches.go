package api

import (
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
)

// ontoindex serves the main branch of each table, as of its latest build,
// and has neither Foundry branches nor transactions. A request that names
// one (the client sends branch= and transactionId= when it is configured
// with them) is refused with 400 InvalidParameterValue naming the
// parameter, instead of being answered silently from main. An empty value
// is what a client sends without either, and passes.

// refuseBranches returns the error of a request that names a branch or a
// transaction in its query.
func refuseBranches(r *http.Request) error {
	q := r.URL.RawQuery
	if !strings.Contains(q, "branch=") && !strings.Contains(q, "transactionId=") {
		return nil
	}
	values := r.URL.Query()
	if v := values.Get("branch"); v != "" {
		return refusedParameter("branch", v)
	}
	if v := values.Get("transactionId"); v != "" {
		return refusedParameter("transactionId", v)
	}
	return nil
}

// refusedParameter is the error of a branch or transaction a request
// names, in its query or its body.
func refusedParameter(parameter, value string) *wire.Error {
	what := "branches"
	if parameter == "transactionId" {
		what = "transactions"
	}
	return wire.Err(wire.NameInvalidParameterValue, map[string]any{"parameter": parameter, "value": wire.Truncate(value),
		"reason": parameter + " is not supported: ontoindex serves each table's main branch as of its latest build and has no " + what + "; send the request without " + parameter})
}
