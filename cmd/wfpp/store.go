package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// Kinds of store wfpp serve and wfpp bench run on.
const (
	storeEmbedded = "embedded" // MongoDB store on the in-process FerretDB server
	storeMongo    = "mongo"    // MongoDB store on WFPP_MONGO_URI
	storeMemory   = "memory"   // memstore: nothing survives the process
)

const (
	mongoDBDefault = "wfpp"
	// mongoConnectTimeout bounds the first ping of a MongoDB given by URI.
	mongoConnectTimeout = 10 * time.Second
)

// storeConfig says which store to open; storeConfigFromEnv fills it.
type storeConfig struct {
	Kind     string // storeEmbedded, storeMongo or storeMemory
	MongoURI string // with storeMongo
	MongoDB  string // database name when MongoURI names none; default mongoDBDefault
	DataDir  string // with storeEmbedded; default embedded.DataDirDefault
	Sync     string // with storeEmbedded: full (default) or normal (WFPP_SYNC)
	// EmbeddedAddr is the loopback host:port the embedded server listens on
	// (WFPP_EMBEDDED_ADDR); default a free port on 127.0.0.1.
	EmbeddedAddr string
	// Database, when set, is used whatever the URI names (wfpp bench).
	Database string
	// DropOnClose drops the database when the store is closed (wfpp bench).
	DropOnClose bool
}

// storeConfigFromEnv reads WFPP_MONGO_URI, WFPP_MONGO_DB, WFPP_DATA_DIR,
// WFPP_SYNC and WFPP_EMBEDDED_ADDR:
// a real MongoDB when the URI is set, else the embedded server.
func storeConfigFromEnv() storeConfig {
	c := storeConfig{
		Kind:     storeEmbedded,
		MongoURI: os.Getenv("WFPP_MONGO_URI"),
		MongoDB:  os.Getenv("WFPP_MONGO_DB"),
		DataDir:  os.Getenv("WFPP_DATA_DIR"),
		Sync:     os.Getenv("WFPP_SYNC"),

		EmbeddedAddr: os.Getenv("WFPP_EMBEDDED_ADDR"),
	}
	if c.MongoURI != "" {
		c.Kind = storeMongo
	}
	return c
}

// openStore opens the store cfg names and returns it with the function that
// closes what it opened (client, then embedded server). Both MongoDB kinds
// run the same mongostore code.
func openStore(ctx context.Context, cfg storeConfig, log *slog.Logger) (engine.Store, func(context.Context) error, error) {
	switch cfg.Kind {
	case storeMemory:
		log.Info("store: in memory; nothing survives a restart")
		return memstore.New(), func(context.Context) error { return nil }, nil
	case storeMongo:
		return openMongo(ctx, cfg, log)
	case storeEmbedded:
		return openEmbedded(ctx, cfg, log)
	}
	return nil, nil, fmt.Errorf("unknown store %q: use %s, %s or %s", cfg.Kind, storeEmbedded, storeMongo, storeMemory)
}

func openMongo(ctx context.Context, cfg storeConfig, log *slog.Logger) (engine.Store, func(context.Context) error, error) {
	if cfg.MongoURI == "" {
		return nil, nil, errors.New("the mongo store needs WFPP_MONGO_URI, e.g. mongodb://localhost:27017/wfpp?replicaSet=rs0")
	}
	cs, err := connstring.ParseAndValidate(cfg.MongoURI)
	if err != nil {
		// The driver's message may quote the URI; do not repeat credentials.
		return nil, nil, errors.New("WFPP_MONGO_URI is not a valid MongoDB connection string (mongodb://HOST:PORT/DB?replicaSet=NAME)")
	}
	dbName := cmp.Or(cfg.Database, cs.Database, cfg.MongoDB, mongoDBDefault)
	hosts := strings.Join(cs.Hosts, ",")
	client, st, err := connectStore(ctx, cfg.MongoURI, dbName, mongostore.Config{Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("MongoDB at %s (WFPP_MONGO_URI): %w", hosts, err)
	}
	log.Info("store: MongoDB", "hosts", hosts, "database", dbName)
	closeAll := func(ctx context.Context) error {
		err := st.Close(ctx) // after the engine stopped: a clean shutdown
		if cfg.DropOnClose {
			err = errors.Join(err, client.Database(dbName).Drop(ctx))
		}
		return errors.Join(err, client.Disconnect(ctx))
	}
	return st, closeAll, nil
}

func openEmbedded(ctx context.Context, cfg storeConfig, log *slog.Logger) (engine.Store, func(context.Context) error, error) {
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: cfg.DataDir, Sync: embedded.Sync(cfg.Sync), Addr: cfg.EmbeddedAddr})
	if err != nil {
		return nil, nil, fmt.Errorf("starting the embedded store (WFPP_DATA_DIR=%q): %w", cfg.DataDir, err)
	}
	dbName := cmp.Or(cfg.Database, cfg.MongoDB, mongoDBDefault)
	// This process owns the data directory: commits need no sequence guard.
	// FerretDB scans for any filter but _id: indexes would only slow writes.
	client, st, err := connectStore(ctx, srv.URI(), dbName, mongostore.Config{Logger: log, SingleWriter: true, NoQueryIndexes: true})
	if err == nil {
		err = srv.IndexByID(ctx, dbName)
	}
	if err != nil {
		if client != nil {
			_ = client.Disconnect(context.WithoutCancel(ctx))
		}
		return nil, nil, errors.Join(fmt.Errorf("embedded store: %w", err), srv.Close(context.WithoutCancel(ctx)))
	}
	log.Info("store: embedded FerretDB", "data_dir", srv.DataDir(), "uri", srv.URI(), "database", dbName,
		"sync", cmp.Or(cfg.Sync, string(embedded.SyncFull)))
	closeAll := func(ctx context.Context) error {
		// Mark the clean shutdown, then disconnect: the server's Close cuts open connections.
		return errors.Join(st.Close(ctx), client.Disconnect(ctx), srv.Close(ctx))
	}
	return st, closeAll, nil
}

// connectStore connects to uri, checks that the server answers, and opens
// the Mongo store on database dbName (creating its indexes).
func connectStore(ctx context.Context, uri, dbName string, cfg mongostore.Config) (*mongo.Client, *mongostore.Store, error) {
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(mongoConnectTimeout))
	if err != nil {
		return nil, nil, fmt.Errorf("connecting: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, mongoConnectTimeout)
	defer cancel()
	if err := client.Ping(pingCtx, readpref.Primary()); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("not reachable within %s: %w", mongoConnectTimeout, err),
			client.Disconnect(context.WithoutCancel(ctx)))
	}
	st, err := mongostore.New(ctx, client.Database(dbName), cfg)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("opening database %s: %w", dbName, err), client.Disconnect(context.WithoutCancel(ctx)))
	}
	return client, st, nil
}
