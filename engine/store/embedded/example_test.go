package embedded_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

func Example() {
	state, err := storeAndRead(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state)
	// Output: running
}

// storeAndRead starts an embedded server in a temporary directory, stores a
// document through the MongoDB driver and reads it back.
func storeAndRead(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "wfpp-example-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)

	server, err := embedded.Start(ctx, embedded.Config{DataDir: dir})
	if err != nil {
		return "", err
	}
	defer server.Close(ctx)

	client, err := mongo.Connect(options.Client().ApplyURI(server.URI()))
	if err != nil {
		return "", err
	}
	defer client.Disconnect(ctx) // before server.Close, or Close waits 3 s for the connections

	c := client.Database("wfpp").Collection("instances")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "i1", "state": "running"}); err != nil {
		return "", err
	}
	var got struct{ State string }
	if err := c.FindOne(ctx, bson.M{"_id": "i1"}).Decode(&got); err != nil {
		return "", err
	}
	return got.State, nil
}
