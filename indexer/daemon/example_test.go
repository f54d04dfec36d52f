package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/prometheus/client_golang/prometheus"
)

// ExampleDaemon wires a daemon as `indexer serve` does: the caller owns
// the indexer, the daemon and the metrics registry; Run returns once the
// context is cancelled and every loop has stopped, and only then is the
// indexer closed. The ops endpoints call Report, StatusOf, Rebuild,
// Reload and NotReady.
func ExampleDaemon() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	const path = "ontology.yaml"
	cfg, err := config.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	reg := prometheus.NewRegistry() // also served at /metrics
	d, err := daemon.New(ix, daemon.Options{Registerer: reg, StopGrace: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}

	// POST /api/indexer/v1/reload, and SIGHUP: a bad config is rejected
	// (400 when errors.Is(err, indexer.ErrInvalidConfig)), the old one stays.
	reload := func() {
		cfg, err := config.Load(path)
		if err == nil {
			_, err = d.Reload(ctx, cfg)
		}
		if errors.Is(err, indexer.ErrInvalidConfig) {
			log.Printf("reload rejected, the old config stays: %v", err)
		} else if err != nil {
			log.Printf("reload: %v", err)
		}
	}
	_ = reload
	// POST /api/indexer/v1/objectTypes/{objectType}/rebuild: 202, or 404
	// when errors.Is(err, indexer.ErrUnknownType).
	_ = d.Rebuild("Customer")
	// GET /api/indexer/v1/status and /status/{objectType}.
	_ = json.NewEncoder(os.Stdout).Encode(d.Report())
	// GET /readyz: 200 when empty, else 503.
	_ = d.NotReady()

	if err := d.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
