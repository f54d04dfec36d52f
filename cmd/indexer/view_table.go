package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// tableArgs are the flags that name the table of `indexer changelog` and
// `indexer view`: an object type of a config, or a table of a catalog.
type tableArgs struct {
	cfgPath, typ, catType, warehouse, ref *string
}

// addTableFlags defines the table flags; what says what the table is for.
func addTableFlags(fs *flag.FlagSet, what string) *tableArgs {
	return &tableArgs{
		cfgPath:   fs.String("config", "", "config file (with --type)"),
		typ:       fs.String("type", "", "object type whose table to "+what+" (with --config)"),
		catType:   fs.String("catalog-type", "", "catalog type (hadoop, sql, rest, glue, hive), instead of --config"),
		warehouse: fs.String("warehouse", "", "warehouse of the catalog (with --catalog-type)"),
		ref:       fs.String("table", "", "table as namespace.table (with --catalog-type)"),
	}
}

func (a *tableArgs) byConfig() bool { return *a.cfgPath != "" || *a.typ != "" }

// check returns the usage error of the flags, "" when they name a table.
func (a *tableArgs) check() string {
	byCatalog := *a.catType != "" || *a.warehouse != "" || *a.ref != ""
	switch {
	case a.byConfig() && byCatalog:
		return "use either --config and --type, or --catalog-type, --warehouse and --table"
	case a.byConfig() && (*a.cfgPath == "" || *a.typ == ""):
		return "--config and --type go together"
	case byCatalog && (*a.catType == "" || *a.ref == ""):
		return "--catalog-type and --table are required without --config"
	case !a.byConfig() && !byCatalog:
		return "name a table: --config F --type T, or --catalog-type hadoop --warehouse DIR --table ns.t"
	}
	return ""
}

// namedTable is the table the flags name.
type namedTable struct {
	tbl  *table.Table
	name string // as errors name it: the table reference
	cfg  *config.Config
	spec *objects.TypeSpec // with --config
}

// explain is config.Explain for errors of reading the table: storage
// failures said plainly, secrets redacted.
func (n *namedTable) explain(err error) error {
	if n.cfg == nil {
		return err
	}
	return n.cfg.Explain(n.name, err)
}

// load loads the table, reporting failures on stderr as cmd; it returns
// the exit code when the command must stop.
func (a *tableArgs) load(ctx context.Context, env *Env, cmd string) (*namedTable, int, bool) {
	if !a.byConfig() {
		tbl, err := catalogTable(ctx, *a.catType, *a.warehouse, *a.ref)
		if err != nil {
			fmt.Fprintf(env.Stderr, "indexer %s: %v\n", cmd, err)
			return nil, exitFailed, false
		}
		return &namedTable{tbl: tbl, name: *a.ref}, 0, true
	}
	cfg, code, ok := loadConfig(env, cmd, *a.cfgPath)
	if !ok {
		return nil, code, false
	}
	if !checkType(env, cmd, cfg, *a.typ) {
		return nil, exitUsage, false
	}
	spec, _ := cfg.TypeSpec(*a.typ)
	tbl, err := catalogs.LoadConfigured(ctx, cfg, spec.Table)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer %s: object type %s: %v\n", cmd, *a.typ, cfg.Explain(spec.Table, err))
		return nil, exitFailed, false
	}
	return &namedTable{tbl: tbl, name: spec.Table, cfg: cfg, spec: spec}, 0, true
}

// keyColumns are the columns of the object type's primary key.
func (n *namedTable) keyColumns() ([]string, error) {
	sc := n.tbl.Schema()
	t, err := n.spec.Resolve(changelog.Columns(sc), changelog.IdentifierColumns(sc))
	if err != nil {
		return nil, fmt.Errorf("object type %s: %w", n.spec.APIName, err)
	}
	var out []string
	for _, i := range t.KeyIndexes() {
		out = append(out, t.Properties[i].Column)
	}
	return out, nil
}

// checkpointSnapshot reads the snapshot the object type's index reflects
// from the data dir's store (ok is false when the type was never built).
// It reads the store directly rather than opening an Indexer, which
// would tidy the data dir (a write); like every process, it cannot open
// the store while another holds it.
func checkpointSnapshot(cfg *config.Config, typ string) (id int64, ok bool, err error) {
	path := filepath.Join(cfg.Path(cfg.DataDir), "state.db") // as indexer.Open names it
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	db, err := store.Open(path)
	if err != nil {
		return 0, false, fmt.Errorf("object type %s: read its checkpoint: %w; give --from (`indexer status` shows the checkpoint of a running server)", typ, err)
	}
	defer db.Close()
	var cp indexer.Checkpoint
	found, _, err := db.Load(typ, &cp)
	if err != nil {
		return 0, false, fmt.Errorf("object type %s: read its checkpoint: %w", typ, err)
	}
	return cp.SnapshotID, found, nil
}

// splitColumns parses a comma-separated list of column names.
func splitColumns(flag, v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	var out []string
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c == "" {
			return nil, fmt.Errorf("%s %q has an empty column name", flag, v)
		}
		out = append(out, c)
	}
	return out, nil
}
