package indexer

import (
	"context"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// applyEquality finds the keys a new equality-delete file removes from
// live baseline files. On the primary-key columns (Flink's upserts) its
// rows are the keys: the baseline answers where each lives, and no data
// file is read. On other columns its rows are values: the files it applies
// to are read, their key and those columns only, and the build counts
// them (EqualityFilesScanned).
func (j *buildJob) applyEquality(ctx context.Context, w *store.Writer, in *changelog.Input, d changelog.DeleteFile, inBaseline func(string) bool) error {
	m := j.mor
	m.stats.DeleteFilesRead++
	eqFile := changelog.DataFile{Path: d.Entry.FilePath(), Size: d.Entry.FileSizeBytes(), Records: d.Entry.Count(), Entry: d.Entry}
	keyType := j.keyType()
	deleted := func(key []byte, file string) {
		in.Deleted = append(in.Deleted, changelog.DeletedKey{Key: key, File: file})
		m.touched[d.Path] = append(m.touched[d.Path], file)
		m.stats.KeysApplied++
	}
	wrap := func(err error) error {
		return &tableError{fmt.Errorf("object type %s: table %s: equality delete file %s: %w", j.name(), j.ts.spec.Table, d.Path, err)}
	}
	if j.onKey(d, keyType) {
		rd, err := j.keyReader()
		if err != nil {
			return err
		}
		err = rd.Rows(ctx, eqFile, keyType, func(key []byte, _ *objects.Object) error {
			file, _, found, err := w.Lookup(key)
			if err == nil && found && inBaseline(file) {
				deleted(slices.Clone(key), file)
			}
			return err
		})
		if err != nil {
			return wrap(err)
		}
		return nil
	}
	// Other columns: the values first, then the files they apply to.
	eqType, probe, err := j.equalityTypes(d, keyType)
	if err != nil {
		return err
	}
	eqReader, err := m.reader.Project(columnsOf(eqType))
	if err != nil {
		return wrap(err)
	}
	values := map[string]bool{}
	if err := eqReader.Rows(ctx, eqFile, eqType, func(v []byte, _ *objects.Object) error { values[string(v)] = true; return nil }); err != nil {
		return wrap(err)
	}
	if len(values) == 0 {
		return nil
	}
	files, err := j.equalityCandidates(ctx, w, d, inBaseline)
	if err != nil {
		return err
	}
	pr, err := m.reader.Project(columnsOf(probe.values))
	if err != nil {
		return wrap(err)
	}
	for _, f := range files {
		m.stats.EqualityFilesScanned++
		err := pr.Rows(ctx, f, probe.values, func(v []byte, o *objects.Object) error {
			if !values[string(v)] {
				return nil
			}
			key, err := probe.key.Key(o)
			if err != nil {
				return nil
			}
			file, _, found, err := w.Lookup(key)
			if err == nil && found && file == f.Path {
				deleted(key, file)
			}
			return err
		})
		if err != nil {
			return wrap(err)
		}
	}
	return nil
}

// onKey reports whether an equality delete is on exactly the primary-key
// columns, and partitioned (if at all) by key columns only, so that a
// deleted key names the one row it removes.
func (j *buildJob) onKey(d changelog.DeleteFile, keyType *objects.Type) bool {
	var ids []int
	for _, p := range keyType.Properties {
		ids = append(ids, p.FieldID)
	}
	eq := slices.Sorted(slices.Values(d.Equality))
	if !slices.Equal(eq, slices.Sorted(slices.Values(ids))) {
		return false
	}
	spec := j.tbl.Metadata().PartitionSpecByID(int(d.SpecID))
	if spec == nil {
		return len(d.Partition) == 0
	}
	for _, f := range spec.Fields() {
		for _, src := range f.SourceIDs {
			if !slices.Contains(ids, src) {
				return false
			}
		}
	}
	return true
}

// probeTypes read the rows of a data file against an equality delete on
// other columns: values keyed by the delete's columns, key by the primary
// key, over the same properties.
type probeTypes struct{ values, key *objects.Type }

// equalityTypes makes the types that read an equality delete's columns:
// eqType reads its rows, probe the data files'.
func (j *buildJob) equalityTypes(d changelog.DeleteFile, keyType *objects.Type) (*objects.Type, probeTypes, error) {
	sc := j.tbl.Schema()
	var eqProps []objects.Property
	for i, id := range d.Equality {
		f, ok := sc.FindFieldByID(id)
		if !ok {
			return nil, probeTypes{}, fmt.Errorf("object type %s: equality delete file %s deletes by field %d, which the schema does not have", j.name(), d.Path, id)
		}
		col := changelog.ColumnOf(f)
		if col.Unsupported != "" {
			return nil, probeTypes{}, fmt.Errorf("object type %s: equality delete file %s deletes by column %s, %s", j.name(), d.Path, f.Name, col.Unsupported)
		}
		eqProps = append(eqProps, objects.Property{APIName: fmt.Sprintf("e%d", i), Column: f.Name, FieldID: id, Type: col.Type})
	}
	names := func(ps []objects.Property) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.APIName
		}
		return out
	}
	eqType := objects.NewType(objects.Type{APIName: j.name(), Table: j.typ.Table, PrimaryKey: names(eqProps), Properties: eqProps})
	props := append(slices.Clone(keyType.Properties), eqProps...)
	probe := probeTypes{
		values: objects.NewType(objects.Type{APIName: j.name(), Table: j.typ.Table, PrimaryKey: names(eqProps), Properties: props}),
		key:    objects.NewType(objects.Type{APIName: j.name(), Table: j.typ.Table, PrimaryKey: keyType.PrimaryKey, Properties: props}),
	}
	return eqType, probe, nil
}

// equalityCandidates lists the live baseline files an equality delete on
// other columns applies to: every one for an unpartitioned delete (all are
// older than a delete new since the checkpoint), those of its partition
// otherwise, found by reading the data manifests.
func (j *buildJob) equalityCandidates(ctx context.Context, w *store.Writer, d changelog.DeleteFile, inBaseline func(string) bool) ([]changelog.DataFile, error) {
	var out []changelog.DataFile
	if len(d.Partition) == 0 {
		var paths []string
		for p := range w.BaselineFiles {
			if inBaseline(p) {
				paths = append(paths, p)
			}
		}
		for _, p := range paths {
			f, ok, err := w.BaselineFile(p)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, f)
			}
		}
		return out, nil
	}
	fs, err := j.tbl.FS(ctx)
	if err != nil {
		return nil, &tableError{err}
	}
	manifests, err := changelog.LiveFiles(ctx, fs, j.snap, nil)
	if err != nil {
		return nil, &tableError{err}
	}
	for _, m := range manifests {
		for _, f := range m.Files {
			if inBaseline(f.Path) && changelog.EqualityApplies(f, d) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// columnsOf lists the columns of a type's properties, each once.
func columnsOf(t *objects.Type) []string { return t.Columns() }
