package indexer

import (
	"encoding/json"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/internal/jsonid"
	"github.com/ontoindex/ontoindex/objects"
)

// Checkpoint is the state an object type's index reflects. The store keeps
// it as JSON (package store's layout), with the snapshot ids as strings
// like all ops JSON (package jsonid); it reads the bare numbers that
// earlier releases stored too (UnmarshalJSON).
type Checkpoint struct {
	SnapshotID int64 `json:"snapshotId,string"`
	// TableUUID is the uuid of the table the checkpoint's snapshot is of
	// ("" in checkpoints of earlier releases): a table dropped and created
	// again under the same name has another, and its baseline means
	// nothing there.
	TableUUID       string `json:"tableUuid,omitempty"`
	SchemaID        int    `json:"schemaId"`
	MappingHash     string `json:"mappingHash"`
	SemanticVersion int    `json:"semanticVersion"`
	// ReadMode is the read mode of the build that wrote the baseline (""
	// in checkpoints of earlier releases: changelog). An appendOnly
	// baseline keeps no row hashes (store.Writer.AppendOnly), so a
	// changelog build on it must be full.
	ReadMode objects.ReadMode `json:"readMode,omitempty"`
	// Backend is the search backend the build wrote the generation to
	// too ("": the embedded index only): a type that names a backend it
	// was not built into, or was built without for a while, is built in
	// full, since the backend's index missed those builds.
	Backend     string        `json:"backend,omitempty"`
	Generation  int           `json:"generation"`
	Type        *objects.Type `json:"type"`
	Objects     int64         `json:"objects"`
	BuiltAt     time.Time     `json:"builtAt"`
	InvalidRows InvalidRows   `json:"invalidRows"`
	LastBuild   *BuildResult  `json:"lastBuild,omitempty"`
}

// InvalidRows counts the rows skipped under onInvalidRow: skip.
type InvalidRows struct {
	Count   int64                  `json:"count"`
	Samples []changelog.InvalidRow `json:"samples"`
}

// UnmarshalJSON decodes the snapshot id as a string or a bare number; the
// last build's ids decode likewise (BuildResult.UnmarshalJSON).
func (cp *Checkpoint) UnmarshalJSON(b []byte) error {
	type plain Checkpoint // without this method
	aux := struct {
		*plain
		SnapshotID jsonid.Int64 `json:"snapshotId"`
	}{plain: (*plain)(cp), SnapshotID: jsonid.Int64(cp.SnapshotID)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	cp.SnapshotID = int64(aux.SnapshotID)
	return nil
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
