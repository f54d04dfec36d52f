package indexer

import (
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// Checkpoint is the state an object type's index reflects. The store keeps
// it as JSON (package store's layout).
type Checkpoint struct {
	SnapshotID      int64         `json:"snapshotId"`
	SchemaID        int           `json:"schemaId"`
	MappingHash     string        `json:"mappingHash"`
	SemanticVersion int           `json:"semanticVersion"`
	Generation      int           `json:"generation"`
	Type            *objects.Type `json:"type"`
	Objects         int64         `json:"objects"`
	BuiltAt         time.Time     `json:"builtAt"`
	InvalidRows     InvalidRows   `json:"invalidRows"`
	LastBuild       *BuildResult  `json:"lastBuild,omitempty"`
}

// InvalidRows counts the rows skipped under onInvalidRow: skip.
type InvalidRows struct {
	Count   int64                  `json:"count"`
	Samples []changelog.InvalidRow `json:"samples"`
}

// loadCheckpoint reads the checkpoint and any build in progress of a type.
func loadCheckpoint(db *store.DB, name string) (*Checkpoint, *store.BuildState, error) {
	cp := new(Checkpoint)
	found, bs, err := db.Load(name, cp)
	if err != nil || !found {
		return nil, bs, err
	}
	return cp, bs, nil // cp.Type indexes its properties as it is decoded
}
