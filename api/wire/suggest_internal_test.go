package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

// mustWireError fails unless err is an *Error of the given name.
func mustWireError(tb testing.TB, err error, name Name) *Error {
	tb.Helper()
	var we *Error
	if !errors.As(err, &we) || we.Name != name {
		tb.Fatalf("err = %v, want %s", err, name)
	}
	return we
}

func TestPropertiesNotFound(t *testing.T) {
	employee := fuzzType()
	var employeeNames []string
	for _, p := range employee.Properties {
		employeeNames = append(employeeNames, p.APIName)
	}
	var many []objects.Property
	for i := range 30 {
		many = append(many, objects.Property{APIName: fmt.Sprintf("field%02d", i), Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric})
	}
	wide := objects.NewType(objects.Type{APIName: "Wide", PrimaryKey: []string{"field00"}, Properties: many})

	tests := []struct {
		name        string
		t           *objects.Type
		names       []string
		wantMessage string
		wantValid   []string // validProperties
		wantClosest []string // closestProperties
	}{
		{"one misspelt", employee, []string{"salry"}, "PropertiesNotFound: Employee has no property salry; did you mean salary?", employeeNames, nil},
		{"case only", employee, []string{"Dept"}, "PropertiesNotFound: Employee has no property Dept; did you mean dept?", employeeNames, nil},
		{"nothing close", employee, []string{"nope"}, "PropertiesNotFound: Employee has no property nope; validProperties lists its properties", employeeNames, nil},
		{"several", employee, []string{"nope", "tittle", "hird"},
			"PropertiesNotFound: Employee has no properties nope, tittle, hird; did you mean title for tittle, hired for hird?", employeeNames, nil},
		{"many properties", wide, []string{"xyz"},
			"PropertiesNotFound: Wide has no property xyz; closestProperties lists the nearest of its properties", nil,
			[]string{"field00", "field01", "field02", "field03", "field04"}},
		{"many properties, close", wide, []string{"feild7"}, "PropertiesNotFound: Wide has no property feild7; did you mean field07?", nil,
			[]string{"field07", "field17", "field27", "field00", "field01"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := PropertiesNotFound(tt.t, tt.names)
			if e.Status() != 404 {
				t.Errorf("status = %d, want 404", e.Status())
			}
			if got := e.Message(); got != tt.wantMessage {
				t.Errorf("message = %q\nwant      %q", got, tt.wantMessage)
			}
			if got, _ := e.Params["properties"].([]string); !slices.Equal(got, tt.names) {
				t.Errorf("properties = %v, want %v", got, tt.names)
			}
			valid, _ := e.Params["validProperties"].([]string)
			closest, _ := e.Params["closestProperties"].([]string)
			if !slices.Equal(valid, tt.wantValid) || !slices.Equal(closest, tt.wantClosest) {
				t.Errorf("validProperties = %v, closestProperties = %v; want %v, %v", valid, closest, tt.wantValid, tt.wantClosest)
			}
		})
	}
}

// TestWhere_messages checks that the where errors say the fix in their
// message, not only in their parameters.
func TestWhere_messages(t *testing.T) {
	tests := []struct {
		name, where string
		want        Name
		wantMessage string
	}{
		{"misspelt field", `{"type":"eq","field":"titel","value":"x"}`, NamePropertiesNotFound,
			"PropertiesNotFound: Employee has no property titel; did you mean title?"},
		{"misspelt identifier", `{"type":"eq","propertyIdentifier":{"type":"property","apiName":"rating_"},"value":1}`, NamePropertiesNotFound,
			"PropertiesNotFound: Employee has no property rating_; did you mean rating?"},
		{"word on a decimal", `{"type":"gt","field":"salary","value":"lots"}`, NameInvalidPropertyFilterValue,
			`InvalidPropertyFilterValue: gt on salary expects decimal(10,2), got "lots"`},
		{"object on an integer", `{"type":"eq","field":"age","value":{"a":1}}`, NameInvalidPropertyFilterValue,
			`InvalidPropertyFilterValue: eq on age expects integer, got {"a":1}`},
		{"string for isNull", `{"type":"isNull","field":"age","value":"yes"}`, NameInvalidPropertyFilterValue,
			`InvalidPropertyFilterValue: isNull on age expects boolean, got "yes"`},
		{"in without a list", `{"type":"in","field":"age","value":3}`, NameInvalidPropertyFilterValue,
			`InvalidPropertyFilterValue: in on age expects array of integer, got 3`},
		{"text without words", `{"type":"containsAnyTerm","field":"bio","value":" ,.- "}`, NameInvalidPropertyFilterValue,
			`InvalidPropertyFilterValue: containsAnyTerm on bio expects text with at least one word, got " ,.- "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Where(fuzzType(), json.RawMessage(tt.where), 10, 100)
			e := mustWireError(t, err, tt.want)
			if got := e.Message(); got != tt.wantMessage {
				t.Errorf("message = %q\nwant      %q", got, tt.wantMessage)
			}
		})
	}
}

func TestInvalidSortOrder(t *testing.T) {
	e := InvalidSortOrder("age", "down")
	if want := `InvalidSortOrder: the direction of age is "down"; it must be "asc" or "desc"`; e.Message() != want {
		t.Errorf("message = %q, want %q", e.Message(), want)
	}
	if e.Params["field"] != "age" || e.Params["invalidSortOrder"] != "down" || e.Status() != 400 {
		t.Errorf("params = %v, status %d", e.Params, e.Status())
	}
}

// TestDecodeToken_messages checks that a string that is no page token
// is told apart from a token of another request.
func TestDecodeToken_messages(t *testing.T) {
	const notAToken = "not a page token: pass the nextPageToken of a previous response, unchanged"
	const otherRequest = "the token was not returned for this request"
	fp := Fingerprint("search", "Employee")
	mine := Token{Kind: TokSearch, FP: fp, Values: []string{"cursor"}}.Encode()
	tests := []struct {
		name, token, want string
	}{
		{"word", "abc", notAToken},
		{"not base64", "a token!", notAToken},
		{"base64 of something else", "aGVsbG8gd29ybGQgaGVsbG8", notAToken},
		{"truncated token", mine[:len(mine)-3], notAToken},
		{"token of another request", Token{Kind: TokSearch, FP: Fingerprint("search", "Assignment"), Values: []string{"cursor"}}.Encode(), otherRequest},
		{"token of another kind", EncodeNameToken("Employee"), otherRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeToken(tt.token, TokSearch, fp)
			e := mustWireError(t, err, NameInvalidPageToken)
			if !strings.Contains(e.Message(), tt.want) {
				t.Errorf("message = %q, want it to contain %q", e.Message(), tt.want)
			}
		})
	}
	if _, err := DecodeToken(mine, TokSearch, fp); err != nil {
		t.Errorf("own token: %v", err)
	}
	_, err := DecodeNameToken("abc")
	if e := mustWireError(t, err, NameInvalidPageToken); !strings.Contains(e.Message(), notAToken) {
		t.Errorf("name token: message = %q", e.Message())
	}
}
