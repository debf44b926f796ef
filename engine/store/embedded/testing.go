package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// testTimeout bounds each helper call against the shared test server.
const testTimeout = 30 * time.Second

// testServer is the one server shared by all tests of a test binary.
var testServer struct {
	once   sync.Once
	err    error
	dir    string
	server *Server
	client *mongo.Client
	seq    atomic.Uint64
}

// NewTestDatabase returns a database unique to t on an embedded server shared
// by the whole test binary, started on first use with its data in a temporary
// directory. The database's Client is connected and shared; do not disconnect
// it. t.Cleanup drops the database.
//
// Wrap the TestMain's testing.M with WithTestServer so that the server is stopped
// and its directory removed when the tests end:
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(embedded.WithTestServer(m)) }
func NewTestDatabase(t testing.TB) *mongo.Database {
	t.Helper()

	testServer.once.Do(startTestServer)
	if testServer.err != nil {
		t.Fatalf("embedded test server: %v", testServer.err)
	}

	name := testDatabaseName(t.Name(), testServer.seq.Add(1))
	db := testServer.client.Database(name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := db.Drop(ctx); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	return db
}

func startTestServer() {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	dir, err := os.MkdirTemp("", "wfpp-embedded-test-")
	if err != nil {
		testServer.err = err
		return
	}
	server, err := Start(ctx, Config{DataDir: dir})
	if err != nil {
		testServer.err = errors.Join(err, os.RemoveAll(dir))
		return
	}
	client, err := mongo.Connect(options.Client().ApplyURI(server.URI()))
	if err != nil {
		testServer.err = errors.Join(err, server.Close(ctx), os.RemoveAll(dir))
		return
	}
	testServer.dir, testServer.server, testServer.client = dir, server, client
}

// stopTestServer stops the shared server, if it was started, and removes its data.
func stopTestServer() error {
	if testServer.server == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err := errors.Join(
		testServer.client.Disconnect(ctx),
		testServer.server.Close(ctx),
		os.RemoveAll(testServer.dir),
	)
	testServer.server = nil
	return err
}

// testDatabaseName makes a valid FerretDB database name (^[a-zA-Z0-9_-]{1,63}$)
// from a test name, unique thanks to seq.
func testDatabaseName(testName string, seq uint64) string {
	suffix := fmt.Sprintf("_%d", seq)
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range testName {
		if b.Len()+len(suffix) >= 63 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	b.WriteString(suffix)
	return b.String()
}

// TestingM is what testing.M and goleak.VerifyTestMain agree on.
type TestingM interface{ Run() int }

// WithTestServer wraps m so that running it also stops the shared test server and
// removes its directory once the tests are done, before goleak looks for
// leaked goroutines. Without it the server dies with the process and leaves an
// empty temporary directory behind.
func WithTestServer(m TestingM) TestingM { return mainWithServer{m} }

type mainWithServer struct{ m TestingM }

func (w mainWithServer) Run() int {
	code := w.m.Run()
	if err := stopTestServer(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping embedded test server: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
