package indexer

import "github.com/ontoindex/ontoindex/indexer/store"

// StoreBaseline returns the baseline of the checkpoint's generation of an
// object type, for tests that compare builds.
func StoreBaseline(ix *Indexer, name string) (*store.Baseline, error) {
	cp, err := ix.Checkpoint(name)
	if err != nil {
		return nil, err
	}
	return ix.db.Baseline(name, cp.Generation)
}
