package embedded_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

func startServer(t *testing.T, cfg embedded.Config) *embedded.Server {
	t.Helper()
	s, err := embedded.Start(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, s.Close(context.Background()))
	})
	return s
}

func connect(t *testing.T, s *embedded.Server) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	require.NoError(t, err)
	t.Cleanup(func() {
		// Registered after the server's cleanup, so it runs first.
		require.NoError(t, client.Disconnect(context.Background()))
	})
	return client
}

func TestStartListensOnLoopbackFreePort(t *testing.T) {
	t.Parallel()
	s := startServer(t, embedded.Config{DataDir: t.TempDir()})

	require.True(t, strings.HasPrefix(s.URI(), "mongodb://127.0.0.1:"), s.URI())
	require.NotEqual(t, "mongodb://127.0.0.1:0/", s.URI())
	require.NoError(t, connect(t, s).Ping(t.Context(), nil))
}

func TestDataPersistsAcrossRestart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()

	s, err := embedded.Start(ctx, embedded.Config{DataDir: dir})
	require.NoError(t, err)
	client, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	require.NoError(t, err)
	c := client.Database("wfpp").Collection("events")
	_, err = c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys: bson.D{{Key: "instance_id", Value: 1}, {Key: "seq", Value: 1}}, Options: options.Index().SetUnique(true),
	})
	require.NoError(t, err)
	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "a"}, {Key: "seq", Value: 1}})
	require.NoError(t, err)
	require.NoError(t, client.Disconnect(ctx))
	require.NoError(t, s.Close(ctx))

	s = startServer(t, embedded.Config{DataDir: dir})
	c = connect(t, s).Database("wfpp").Collection("events")
	n, err := c.CountDocuments(ctx, bson.D{{Key: "instance_id", Value: "a"}})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "a"}, {Key: "seq", Value: 1}})
	require.True(t, mongo.IsDuplicateKeyError(err), "the unique index persists too: %v", err)
}

func TestDataDirIsLocked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	startServer(t, embedded.Config{DataDir: dir})

	_, err := embedded.Start(t.Context(), embedded.Config{DataDir: dir})
	require.ErrorIs(t, err, embedded.ErrDataDirLocked)
}

func TestCloseIsIdempotentAndWaits(t *testing.T) {
	t.Parallel()
	s, err := embedded.Start(t.Context(), embedded.Config{DataDir: t.TempDir()})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	require.NoError(t, s.Close(ctx))
}

func TestConfigRejectsNonLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:27017", "127.0.0.1"} {
		_, err := embedded.Start(t.Context(), embedded.Config{DataDir: t.TempDir(), Addr: addr})
		require.Error(t, err, addr)
	}
}

func TestCloseDoesNotWaitForConnectedClients(t *testing.T) {
	t.Parallel()
	s, err := embedded.Start(t.Context(), embedded.Config{DataDir: t.TempDir()})
	require.NoError(t, err)
	client, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	require.NoError(t, err)
	require.NoError(t, client.Ping(t.Context(), nil))

	// FerretDB alone would wait 3 s for the open connections.
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	require.NoError(t, client.Disconnect(t.Context()))
}
