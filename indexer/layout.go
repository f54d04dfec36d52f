package indexer

import (
	"fmt"

	"github.com/ontoindex/ontoindex/objects"
)

// searchLayout versions what the index derives from objects (structures,
// text analysis, the store's record layout). It is part of the mapping
// hash of a checkpoint, so a release that changes it rebuilds every object
// type in full.
const searchLayout = 3

// mappingHash is the checkpoint's fingerprint of what decides the index.
func mappingHash(t *objects.Type) string {
	return fmt.Sprintf("%s/s%d", t.MappingHash(), searchLayout)
}
