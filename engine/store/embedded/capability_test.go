package embedded_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestCapabilities pins down what FerretDB v1 embedded (SQLite) does and does
// not do, as stated in doc.go. A case marked unsupported that starts passing
// after an upgrade fails too, so that doc.go gets updated.
func TestCapabilities(t *testing.T) {
	t.Parallel()

	for _, tc := range capabilityCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, c := setup(t)
			_, err := c.InsertMany(ctx, []any{
				bson.M{"_id": 1, "k": "a", "n": 1, "tags": bson.A{"x", "y"}, "items": bson.A{bson.M{"s": "open", "v": 1}, bson.M{"s": "done", "v": 2}}, "sub": bson.M{"f": 1}},
				bson.M{"_id": 2, "k": "b", "n": 2, "tags": bson.A{"y"}, "items": bson.A{bson.M{"s": "open", "v": 3}}, "sub": bson.M{"f": 2}},
				bson.M{"_id": 3, "k": "b", "n": 3, "tags": bson.A{}, "items": bson.A{}, "sub": bson.M{"f": 3}},
			})
			require.NoError(t, err)

			err = tc.run(ctx, c)
			if tc.supported {
				require.NoError(t, err)
			} else {
				require.Error(t, err, "now supported: update doc.go and mark it supported")
				t.Logf("unsupported, as documented: %v", err)
			}
		})
	}
}

type capabilityCase struct {
	name      string
	supported bool
	run       func(ctx context.Context, c *mongo.Collection) error
}

// expect returns an error unless got equals want.
func expect(what string, got, want any) error {
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s: got %#v, want %#v", what, got, want)
	}
	return nil
}

func findOne(ctx context.Context, c *mongo.Collection, id any) (bson.M, error) {
	var doc bson.M
	err := c.FindOne(ctx, bson.M{"_id": id}).Decode(&doc)
	return doc, err
}

func aggregate(ctx context.Context, c *mongo.Collection, pipeline ...bson.D) ([]bson.M, error) {
	cur, err := c.Aggregate(ctx, mongo.Pipeline(pipeline))
	if err != nil {
		return nil, err
	}
	var out []bson.M
	return out, cur.All(ctx, &out)
}

func stage(name string, v any) bson.D { return bson.D{{Key: name, Value: v}} }

var capabilityCases = []capabilityCase{
	// --- Not supported ---
	{"multi-document transaction", false, func(ctx context.Context, c *mongo.Collection) error {
		sess, err := c.Database().Client().StartSession()
		if err != nil {
			return err
		}
		defer sess.EndSession(ctx)
		_, err = sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
			return c.InsertOne(ctx, bson.M{"_id": 10})
		})
		return err
	}},
	{"change stream (Watch)", false, func(ctx context.Context, c *mongo.Collection) error {
		cs, err := c.Watch(ctx, mongo.Pipeline{})
		if err == nil {
			_ = cs.Close(ctx)
		}
		return err
	}},
	{"update that breaks a unique index reports duplicate key", false, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k2", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
			return err
		}
		if _, err := c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$set": bson.M{"k2": "z"}}); err != nil {
			return err
		}
		_, err := c.UpdateOne(ctx, bson.M{"_id": 2}, bson.M{"$set": bson.M{"k2": "z"}})
		if mongo.IsDuplicateKeyError(err) {
			return nil
		}
		if err == nil {
			return fmt.Errorf("no error at all")
		}
		if doc, _ := findOne(ctx, c, 2); doc["k2"] != nil {
			return fmt.Errorf("failed update was applied: %v", doc)
		}
		return err
	}},
	{"$setOnInsert", true, func(ctx context.Context, c *mongo.Collection) error {
		for range 2 {
			_, err := c.UpdateOne(ctx, bson.M{"_id": 10}, bson.M{"$setOnInsert": bson.M{"created": 1}, "$inc": bson.M{"n": 1}}, options.UpdateOne().SetUpsert(true))
			if err != nil {
				return err
			}
		}
		doc, err := findOne(ctx, c, 10)
		if err != nil {
			return err
		}
		return expect("doc", doc, bson.M{"_id": int32(10), "created": int32(1), "n": int32(2)})
	}},
	{"arrayFilters", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$set": bson.M{"items.$[e].s": "closed"}},
			options.UpdateOne().SetArrayFilters([]any{bson.M{"e.s": "open"}}))
		return err
	}},
	{"positional $ update", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": 1, "items.s": "open"}, bson.M{"$set": bson.M{"items.$.s": "closed"}})
		return err
	}},
	{"update with aggregation pipeline", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": 1}, mongo.Pipeline{stage("$set", bson.M{"m": "$n"})})
		return err
	}},
	{"$expr query", false, func(ctx context.Context, c *mongo.Collection) error {
		n, err := c.CountDocuments(ctx, bson.M{"$expr": bson.M{"$gt": bson.A{"$n", "$sub.f"}}})
		if err != nil {
			return err
		}
		return expect("count", n, int64(0))
	}},
	{"$lookup", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := aggregate(ctx, c, stage("$lookup", bson.M{"from": "c", "localField": "k", "foreignField": "k", "as": "same"}))
		return err
	}},
	{"$facet", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := aggregate(ctx, c, stage("$facet", bson.M{"all": bson.A{stage("$count", "n")}}))
		return err
	}},
	{"$replaceRoot", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := aggregate(ctx, c, stage("$replaceRoot", bson.M{"newRoot": "$sub"}))
		return err
	}},
	{"$addFields with expression", false, func(ctx context.Context, c *mongo.Collection) error {
		out, err := aggregate(ctx, c, stage("$addFields", bson.M{"m": bson.M{"$add": bson.A{"$n", 1}}}), stage("$sort", bson.M{"_id": 1}))
		if err != nil {
			return err
		}
		return expect("m", out[0]["m"], int32(2))
	}},
	{"partial index", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
			Keys:    bson.D{{Key: "k", Value: 1}},
			Options: options.Index().SetUnique(true).SetPartialFilterExpression(bson.M{"n": bson.M{"$gt": 2}}),
		})
		return err
	}},
	{"sparse index", true, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "opt", Value: 1}}, Options: options.Index().SetSparse(true)})
		return err
	}},
	{"TTL index", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60)})
		return err
	}},
	{"collation", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Find(ctx, bson.M{"k": "A"}, options.Find().SetCollation(&options.Collation{Locale: "en", Strength: 2}))
		return err
	}},
	{"decimal128", false, func(ctx context.Context, c *mongo.Collection) error {
		d, _ := bson.ParseDecimal128("1.5")
		_, err := c.InsertOne(ctx, bson.M{"_id": 10, "d": d})
		return err
	}},
	{"$push with $each and $slice", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$push": bson.M{"tags": bson.M{"$each": bson.A{"z"}, "$slice": -2}}})
		if err != nil {
			return err
		}
		doc, err := findOne(ctx, c, 1)
		if err != nil {
			return err
		}
		return expect("tags", doc["tags"], bson.A{"y", "z"})
	}},

	// --- Supported ---
	{"unique index: missing fields do not collide, explicit nulls and equal numbers of any type do", true, func(ctx context.Context, c *mongo.Collection) error {
		// MongoDB would refuse this index: the three documents all lack "req" (null).
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "req", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
			return err
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 10, "req": nil}); err != nil {
			return err
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 11, "req": nil}); !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("second null: %w", err)
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 12, "req": int32(1)}); err != nil {
			return err
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 13, "req": 1.0}); !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("1.0 after int32 1: %w", err)
		}
		return nil
	}},
	{"unique index over array elements (multikey)", false, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "arr", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
			return err
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 10, "arr": bson.A{7, 8}}); err != nil {
			return err
		}
		if _, err := c.InsertOne(ctx, bson.M{"_id": 11, "arr": bson.A{8}}); !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("overlapping arrays are accepted silently (err %w)", err)
		}
		return nil
	}},
	{"nested arrays", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": 10, "a": bson.A{bson.A{1}}})
		return err
	}},
	{"$elemMatch on an array of documents", false, func(ctx context.Context, c *mongo.Collection) error {
		n, err := c.CountDocuments(ctx, bson.M{"items": bson.M{"$elemMatch": bson.M{"s": "open"}}})
		if err != nil {
			return err
		}
		return expect("count (silently wrong)", n, int64(2))
	}},
	{"$pull with a condition", false, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$pull": bson.M{"items": bson.M{"s": "done"}}}); err != nil {
			return err
		}
		doc, err := findOne(ctx, c, 1)
		if err != nil {
			return err
		}
		return expect("items left (silently unchanged)", len(doc["items"].(bson.A)), 1)
	}},
	{"$group accumulators other than $sum and $count", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := aggregate(ctx, c, stage("$group", bson.M{"_id": "$k", "first": bson.M{"$first": "$n"}}))
		return err
	}},
	{"$group with two accumulators", false, func(ctx context.Context, c *mongo.Collection) error {
		// FerretDB v1 feeds the group's documents to the first accumulator
		// only; the second sums nothing. bson.D keeps the order fixed.
		out, err := aggregate(ctx, c,
			stage("$group", bson.D{{Key: "_id", Value: "$k"}, {Key: "count", Value: bson.M{"$sum": 1}}, {Key: "total", Value: bson.M{"$sum": "$n"}}}),
			stage("$sort", bson.D{{Key: "_id", Value: 1}}),
		)
		if err != nil {
			return err
		}
		return expect("groups (silently wrong)", out, []bson.M{{"_id": "a", "count": int32(1), "total": int32(1)}, {"_id": "b", "count": int32(2), "total": int32(5)}})
	}},
	{"$sortByCount $out $merge stages", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := aggregate(ctx, c, stage("$sortByCount", "$k"))
		return err
	}},
	{"projection operators ($slice, $elemMatch)", false, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{"items": bson.M{"$slice": 1}}))
		return err
	}},
	{"distinct without a context deadline", true, func(_ context.Context, c *mongo.Collection) error {
		var ks []string
		if err := c.Distinct(context.Background(), "k", bson.M{}).Decode(&ks); err != nil {
			return err
		}
		return expect("distinct", ks, []string{"a", "b"})
	}},
	{"$pull by value, $pop, $set/$unset stages, UpdateMany upsert, capped collection", true, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$pull": bson.M{"tags": "x"}, "$pop": bson.M{"items": 1}}); err != nil {
			return err
		}
		if _, err := aggregate(ctx, c, stage("$set", bson.M{"m": "$n"}), stage("$unset", "tags")); err != nil {
			return err
		}
		if _, err := c.UpdateMany(ctx, bson.M{"_id": 99}, bson.M{"$set": bson.M{"z": 1}}, options.UpdateMany().SetUpsert(true)); err != nil {
			return err
		}
		return c.Database().CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20))
	}},
	{"unique index creation over existing duplicates fails", true, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)})
		if err == nil {
			return fmt.Errorf("created a unique index over duplicate values")
		}
		return nil
	}},
	{"$push $pull $addToSet", true, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": 2}, bson.M{"$push": bson.M{"tags": "p"}, "$addToSet": bson.M{"set": "q"}}); err != nil {
			return err
		}
		if _, err := c.UpdateOne(ctx, bson.M{"_id": 2}, bson.M{"$pull": bson.M{"tags": "y"}}); err != nil {
			return err
		}
		doc, err := findOne(ctx, c, 2)
		if err != nil {
			return err
		}
		return expect("tags,set", []any{doc["tags"], doc["set"]}, []any{bson.A{"p"}, bson.A{"q"}})
	}},
	{"$unset $min $max $mul $rename $currentDate", true, func(ctx context.Context, c *mongo.Collection) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": 3}, bson.M{
			"$unset": bson.M{"tags": ""}, "$min": bson.M{"n": 0}, "$max": bson.M{"hi": 9},
			"$mul": bson.M{"sub.f": 2}, "$rename": bson.M{"k": "kind"}, "$currentDate": bson.M{"at": true},
		})
		if err != nil {
			return err
		}
		doc, err := findOne(ctx, c, 3)
		if err != nil {
			return err
		}
		if _, ok := doc["at"].(bson.DateTime); !ok {
			return fmt.Errorf("$currentDate: got %#v", doc["at"])
		}
		delete(doc, "at")
		return expect("doc", doc, bson.M{"_id": int32(3), "kind": "b", "n": int32(0), "hi": int32(9), "items": bson.A{}, "sub": bson.D{{Key: "f", Value: int32(6)}}})
	}},
	{"dotted paths in filter, update, sort and index", true, func(ctx context.Context, c *mongo.Collection) error {
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "sub.f", Value: 1}}}); err != nil {
			return err
		}
		if _, err := c.UpdateOne(ctx, bson.M{"sub.f": 2}, bson.M{"$set": bson.M{"sub.g": "x"}}); err != nil {
			return err
		}
		var doc bson.M
		if err := c.FindOne(ctx, bson.M{"sub.g": "x"}, options.FindOne().SetSort(bson.D{{Key: "sub.f", Value: -1}})).Decode(&doc); err != nil {
			return err
		}
		return expect("_id", doc["_id"], int32(2))
	}},
	{"$or $ne $nin $exists $regex, dotted path into an array, $elemMatch on scalars", true, func(ctx context.Context, c *mongo.Collection) error {
		n, err := c.CountDocuments(ctx, bson.M{
			"$or":     bson.A{bson.M{"k": "a"}, bson.M{"n": bson.M{"$ne": 1, "$nin": bson.A{3}}}},
			"sub":     bson.M{"$exists": true},
			"k":       bson.M{"$regex": "^[ab]$"},
			"items.s": "open",
			"tags":    bson.M{"$elemMatch": bson.M{"$in": bson.A{"x", "y"}}},
		})
		if err != nil {
			return err
		}
		return expect("count", n, int64(2))
	}},
	{"aggregate $match $group $sort $limit $project $unwind $count", true, func(ctx context.Context, c *mongo.Collection) error {
		out, err := aggregate(ctx, c,
			stage("$match", bson.M{"n": bson.M{"$gte": 1}}),
			stage("$group", bson.M{"_id": "$k", "total": bson.M{"$sum": "$n"}}),
			stage("$sort", bson.D{{Key: "_id", Value: 1}}),
			stage("$limit", 5),
			stage("$project", bson.M{"total": 1}),
		)
		if err != nil {
			return err
		}
		if err := expect("groups", out, []bson.M{{"_id": "a", "total": int32(1)}, {"_id": "b", "total": int32(5)}}); err != nil {
			return err
		}
		out, err = aggregate(ctx, c, stage("$unwind", "$items"), stage("$count", "n"))
		if err != nil {
			return err
		}
		return expect("unwound", out, []bson.M{{"n": int32(3)}})
	}},
	{"distinct under a context deadline", false, func(ctx context.Context, c *mongo.Collection) error {
		var ks []string
		if err := c.Distinct(ctx, "k", bson.M{}).Decode(&ks); err != nil {
			return err
		}
		return expect("distinct", ks, []string{"a", "b"})
	}},
	{"UpdateMany ReplaceOne FindOneAndDelete FindOneAndReplace", true, func(ctx context.Context, c *mongo.Collection) error {
		res, err := c.UpdateMany(ctx, bson.M{"k": "b"}, bson.M{"$set": bson.M{"flag": true}})
		if err != nil {
			return err
		}
		if err := expect("modified", res.ModifiedCount, int64(2)); err != nil {
			return err
		}
		if _, err := c.ReplaceOne(ctx, bson.M{"_id": 1}, bson.M{"k": "r"}); err != nil {
			return err
		}
		var doc bson.M
		if err := c.FindOneAndReplace(ctx, bson.M{"_id": 2}, bson.M{"k": "r2"}, options.FindOneAndReplace().SetReturnDocument(options.After)).Decode(&doc); err != nil {
			return err
		}
		if err := expect("replaced", doc, bson.M{"_id": int32(2), "k": "r2"}); err != nil {
			return err
		}
		if err := c.FindOneAndDelete(ctx, bson.M{"_id": 3}).Decode(&doc); err != nil {
			return err
		}
		n, err := c.CountDocuments(ctx, bson.M{})
		if err != nil {
			return err
		}
		return expect("left", n, int64(2))
	}},
	{"BulkWrite mixed, unordered", true, func(ctx context.Context, c *mongo.Collection) error {
		res, err := c.BulkWrite(ctx, []mongo.WriteModel{
			mongo.NewInsertOneModel().SetDocument(bson.M{"_id": 20}),
			mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": 1}).SetUpdate(bson.M{"$inc": bson.M{"n": 1}}),
			mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": 30}).SetUpdate(bson.M{"$set": bson.M{"n": 1}}).SetUpsert(true),
			mongo.NewDeleteOneModel().SetFilter(bson.M{"_id": 3}),
		}, options.BulkWrite().SetOrdered(false))
		if err != nil {
			return err
		}
		return expect("counts", []int64{res.InsertedCount, res.ModifiedCount, res.UpsertedCount, res.DeletedCount}, []int64{1, 1, 1, 1})
	}},
	{"FindOneAndUpdate with projection", false, func(ctx context.Context, c *mongo.Collection) error {
		var doc bson.M
		err := c.FindOneAndUpdate(ctx, bson.M{"_id": 1}, bson.M{"$inc": bson.M{"n": 1}},
			options.FindOneAndUpdate().SetProjection(bson.M{"n": 1, "_id": 0})).Decode(&doc)
		if err != nil {
			return err
		}
		return expect("before", doc, bson.M{"n": int32(1)})
	}},
	{"find with skip, multi-key sort and small batches (getMore)", true, func(ctx context.Context, c *mongo.Collection) error {
		docs := make([]any, 250)
		for i := range docs {
			docs[i] = bson.M{"_id": 100 + i, "g": i % 2, "n": i}
		}
		if _, err := c.InsertMany(ctx, docs); err != nil {
			return err
		}
		cur, err := c.Find(ctx, bson.M{"_id": bson.M{"$gte": 100}},
			options.Find().SetSort(bson.D{{Key: "g", Value: 1}, {Key: "n", Value: -1}}).SetSkip(1).SetBatchSize(7))
		if err != nil {
			return err
		}
		var out []struct{ N int }
		if err := cur.All(ctx, &out); err != nil {
			return err
		}
		return expect("len,first,last", []int{len(out), out[0].N, out[len(out)-1].N}, []int{249, 246, 1})
	}},
	{"hint, listIndexes, dropIndex", true, func(ctx context.Context, c *mongo.Collection) error {
		name, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}, {Key: "n", Value: -1}}})
		if err != nil {
			return err
		}
		if err := c.FindOne(ctx, bson.M{"k": "a"}, options.FindOne().SetHint(name)).Err(); err != nil {
			return err
		}
		specs, err := c.Indexes().ListSpecifications(ctx)
		if err != nil {
			return err
		}
		if err := expect("indexes", len(specs), 2); err != nil {
			return err
		}
		return c.Indexes().DropOne(ctx, name)
	}},
	{"write concern majority, read concern majority", true, func(ctx context.Context, c *mongo.Collection) error {
		wc := c.Database().Collection(c.Name(), options.Collection().SetWriteConcern(writeconcern.Majority()).SetReadConcern(readconcern.Majority()))
		if _, err := wc.InsertOne(ctx, bson.M{"_id": 10}); err != nil {
			return err
		}
		return wc.FindOne(ctx, bson.M{"_id": 10}).Err()
	}},
	{"int64 and 1 MiB document", true, func(ctx context.Context, c *mongo.Collection) error {
		big := strings.Repeat("x", 1<<20)
		if _, err := c.InsertOne(ctx, bson.M{"_id": 10, "i": int64(1) << 60, "big": big}); err != nil {
			return err
		}
		doc, err := findOne(ctx, c, 10)
		if err != nil {
			return err
		}
		return expect("i,len", []any{doc["i"], len(doc["big"].(string))}, []any{int64(1) << 60, 1 << 20})
	}},
	{"date comparison and millisecond round trip", true, func(ctx context.Context, c *mongo.Collection) error {
		at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
		if _, err := c.InsertOne(ctx, bson.M{"_id": 10, "at": at}); err != nil {
			return err
		}
		var doc struct{ At time.Time }
		if err := c.FindOne(ctx, bson.M{"at": bson.M{"$gte": at, "$lt": at.Add(time.Millisecond)}}).Decode(&doc); err != nil {
			return err
		}
		return expect("at", doc.At.UTC(), at)
	}},
}
