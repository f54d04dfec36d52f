package api

import (
	"net/http"

	"github.com/ontoindex/ontoindex/objects"
)

// linkTypeRIDPrefix starts the rid of a link type: the source type and the
// link apiName as the config declares it, so both sides share it.
const linkTypeRIDPrefix = "ri.ontoindex.main.link-type."

// linkTypeSideV2 is LinkTypeSideV2.
type linkTypeSideV2 struct {
	APIName                   string `json:"apiName"`
	DisplayName               string `json:"displayName"`
	Status                    string `json:"status"`
	ObjectTypeAPIName         string `json:"objectTypeApiName"`
	Cardinality               string `json:"cardinality"`
	ForeignKeyPropertyAPIName string `json:"foreignKeyPropertyApiName,omitempty"`
	LinkTypeRID               string `json:"linkTypeRid"`
}

// linkSides lists the outgoing link sides of an object type that the
// request's principal may follow: a link to a type it cannot see does not
// exist for it.
func (s *Server) linkSides(r *http.Request, typeName string) []objects.LinkSide {
	p := PrincipalFrom(r.Context())
	var out []objects.LinkSide
	for _, l := range s.engine.Config().Links()[typeName] {
		if p != nil && p.CanSee(l.Target) && s.isObjectType(l.Target) {
			out = append(out, l)
		}
	}
	return out
}

// linkSide returns the outgoing link side of an object type by name, if
// the principal may follow it.
func (s *Server) linkSide(r *http.Request, typeName, link string) (objects.LinkSide, bool) {
	for _, l := range s.linkSides(r, typeName) {
		if l.APIName == link {
			return l, true
		}
	}
	return objects.LinkSide{}, false
}

// linkTypeSide renders a link side.
func linkTypeSide(l objects.LinkSide) linkTypeSideV2 {
	card := "ONE"
	if l.Many {
		card = "MANY"
	}
	return linkTypeSideV2{APIName: l.APIName, DisplayName: l.DisplayName, Status: "ACTIVE", ObjectTypeAPIName: l.Target,
		Cardinality: card, ForeignKeyPropertyAPIName: l.ForeignKeyProperty(), LinkTypeRID: linkTypeRIDPrefix + l.LinkType}
}
