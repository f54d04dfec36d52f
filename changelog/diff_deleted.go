package changelog

import "context"

// maskDeleted is the baseline lookup of a diff whose range deleted keys
// from files that stay live: a deleted key is found, with its row hash,
// in no file, so that a row of an added file that holds it again is an
// update or a carry-over (Classify) and not a duplicate of the deleted
// row.
func maskDeleted(base Baseline, deleted []DeletedKey) func(key []byte) (string, uint64, bool, error) {
	if len(deleted) == 0 {
		return base.Lookup
	}
	from := make(map[string]string, len(deleted))
	for _, d := range deleted {
		from[string(d.Key)] = d.File
	}
	return func(key []byte) (string, uint64, bool, error) {
		file, hash, found, err := base.Lookup(key)
		if found && err == nil {
			if f, ok := from[string(key)]; ok && f == file {
				return "", hash, true, nil
			}
		}
		return file, hash, found, err
	}
}

// applyDeleted deletes the deleted keys that no added file held again:
// those the baseline still places in the file they were deleted from.
func applyDeleted(ctx context.Context, deleted []DeletedKey, base Baseline, sink Sink, st *Stats) error {
	for _, d := range deleted {
		if err := ctx.Err(); err != nil {
			return err
		}
		file, _, found, err := base.Lookup(d.Key)
		if err != nil {
			return err
		}
		if !found || file != d.File {
			continue
		}
		st.Deletes++
		if err := sink.Apply(&Change{Type: Delete, Key: d.Key}); err != nil {
			return err
		}
	}
	return nil
}
