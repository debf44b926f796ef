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
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "wfpp-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	server, err := embedded.Start(ctx, embedded.Config{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close(ctx)

	client, err := mongo.Connect(options.Client().ApplyURI(server.URI()))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Disconnect(ctx) // before server.Close, or Close waits 3 s for the connections

	c := client.Database("wfpp").Collection("instances")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "i1", "state": "running"}); err != nil {
		log.Fatal(err)
	}
	var got struct{ State string }
	if err := c.FindOne(ctx, bson.M{"_id": "i1"}).Decode(&got); err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.State)
	// Output: running
}
