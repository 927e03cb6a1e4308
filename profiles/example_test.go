package profiles_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rmsidecar/rmsidecar/profiles"
)

type stageWeights struct {
	M1, M2, R1, R2, R3 float64
}

// Schema 2: the shape changed once; readers check Record.Schema.
func (stageWeights) ProfileSchema() int { return 2 }

func Example() {
	ctx := context.Background()
	db := profiles.NewMemory() // profiles.Open(path, profiles.Options{}) in the sidecar
	defer db.Close()

	err := db.Batch(ctx, func(tx *profiles.Tx) error {
		if err := tx.Put("samr", "weights/sort", stageWeights{M1: 1, R1: 0.33, R2: 0.33, R3: 0.34}); err != nil {
			return err
		}
		return tx.Put("samr", "weights/grep", stageWeights{M1: 0.9, M2: 0.1, R1: 1})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var w stageWeights
	found, _ := db.Get(ctx, "samr", "weights/sort", &w)
	keys, _ := db.List(ctx, "samr")
	fmt.Println(found, w.R3, keys)
	db.Export(ctx, os.Stdout)
	// Output:
	// true 0.34 [weights/grep weights/sort]
	// {"v":1,"records":[
	// {"ns":"samr","key":"weights/grep","schema":2,"rev":1,"value":{"M1":0.9,"M2":0.1,"R1":1,"R2":0,"R3":0}},
	// {"ns":"samr","key":"weights/sort","schema":2,"rev":1,"value":{"M1":1,"M2":0,"R1":0.33,"R2":0.33,"R3":0.34}}
	// ]}
}
