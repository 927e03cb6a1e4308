package hdfslocality_test

import (
	"context"
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/hdfslocality"
)

// The sidecar builds one resolver from the cluster's Hadoop configuration,
// feeds racks from the RM's node list, and asks without blocking.
func ExampleNewFromConfDir() {
	racks := hdfslocality.NewStaticRacks(nil)
	r, err := hdfslocality.NewFromConfDir("/etc/hadoop/conf", hdfslocality.Options{
		Logger:     zerolog.New(os.Stderr),
		Registerer: prometheus.NewRegistry(),
		Racks:      racks,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	racks.Set("dn1.example.com", "/rack1") // from node.registered events

	// In the event loop: never blocks; ok=false until the first answer.
	if res, ok := r.Lookup("hdfs://mycluster/data/in"); ok && res.Err == nil {
		for host, bytes := range res.HostBytes() {
			fmt.Println(host, bytes, res.Stale)
		}
	}

	// In a tool: wait for answers.
	results, err := r.Resolve(context.Background(), []string{"/data/in", "/data/other"})
	if err == nil {
		for _, res := range results {
			fmt.Println(res.Path, len(res.Files), res.Err)
		}
	}
}
