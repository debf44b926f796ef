package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestStoreServe: `wfpp store serve` prints the URI to give the replicas,
// serves the MongoDB wire protocol there until SIGTERM, exits cleanly, and
// a second run on the same data directory reads what the first stored.
func TestStoreServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wfpp and runs it as a child")
	}
	bin := buildWfpp(t)
	dir := filepath.Join(t.TempDir(), "store")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	s := startStoreServer(ctx, t, bin, dir)
	require.True(t, strings.HasPrefix(s.uri, "mongodb://127.0.0.1:"), s.uri)
	require.True(t, strings.HasSuffix(s.uri, "/wfpp"), s.uri)
	client := connectURI(ctx, t, s.uri)
	_, err := client.Database("wfpp").Collection("notes").InsertOne(ctx, bson.D{{Key: "_id", Value: "n1"}, {Key: "text", Value: "kept"}})
	require.NoError(t, err)
	require.NoError(t, client.Disconnect(ctx))
	s.stop(t)

	s = startStoreServer(ctx, t, bin, dir)
	client = connectURI(ctx, t, s.uri)
	var got struct{ Text string }
	require.NoError(t, client.Database("wfpp").Collection("notes").FindOne(ctx, bson.D{{Key: "_id", Value: "n1"}}).Decode(&got))
	require.Equal(t, "kept", got.Text)
	require.NoError(t, client.Disconnect(ctx))
	s.stop(t)
}

// storeServer is a `wfpp store serve` child.
type storeServer struct {
	cmd  *exec.Cmd
	uri  string        // from the WFPP_MONGO_URI= line it printed
	done chan struct{} // closed once the process has ended
	log  string        // path of the file holding its output
}

// startStoreServer runs `wfpp store serve` on a free port with its data in
// dir and returns once it printed its URI. The test's cleanup kills it if
// it still runs, and shows its log if the test failed.
func startStoreServer(ctx context.Context, t testing.TB, bin, dir string) *storeServer {
	t.Helper()
	cmd := exec.Command(bin, "store", "serve", "--addr", "127.0.0.1:0", "--data", dir, "--sync", "normal")
	cmd.Env = withoutWfppEnv()
	s := &storeServer{cmd: cmd, done: make(chan struct{}), log: filepath.Join(t.TempDir(), "store.log")}
	log, err := os.Create(s.log)
	require.NoError(t, err)
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	uri := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if v, ok := strings.CutPrefix(sc.Text(), "WFPP_MONGO_URI="); ok {
				uri <- v
			}
		}
		_ = cmd.Wait()
		log.Close()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
		if b, err := os.ReadFile(s.log); t.Failed() && err == nil {
			t.Logf("wfpp store serve log:\n%s", b)
		}
	})
	select {
	case s.uri = <-uri:
		return s
	case <-s.done:
		t.Fatalf("wfpp store serve exited before printing its URI: %v", cmd.ProcessState)
	case <-ctx.Done():
		t.Fatalf("wfpp store serve printed no URI: %v", ctx.Err())
	}
	return nil
}

// stop sends SIGTERM and checks the server exits with code 0.
func (s *storeServer) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatal("wfpp store serve did not stop within 20 s of SIGTERM")
	}
	require.Equal(t, 0, s.cmd.ProcessState.ExitCode(), "exit code after SIGTERM")
}

func connectURI(ctx context.Context, t testing.TB, uri string) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	require.NoError(t, err)
	require.NoError(t, client.Ping(ctx, nil))
	return client
}

// withoutWfppEnv is this process's environment without any WFPP_ variable,
// so that a developer's settings do not leak into a child.
func withoutWfppEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WFPP_") {
			env = append(env, kv)
		}
	}
	return env
}
