package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzLoad: any YAML file either loads into a Config that validates, the
// same on a second load, or fails with an error that names the file or the
// keys at fault; it never panics.
func FuzzLoad(f *testing.F) {
	f.Add(Example)
	f.Add([]byte("kafka:\n  brokers: [kafka-1:9092, kafka-2:9092]\n  tls: {enabled: true}\npolicies:\n  stack: samr+sepb\n  samr: {hp: 0.2}\n"))
	f.Add([]byte("kafka:\n  brokers: [a:9092, b:99999]\nlog:\n  level: loud\n"))
	f.Add([]byte("actuators:\n  enabled: [log, rm]\nrm:\n  urls: [http://rm1:8088]\n  timeout: 5s\n"))
	f.Add([]byte("engine:\n  tick: soon\n  queue_size: -1\n"))
	f.Add([]byte("kafka: [1, 2]\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(file, nil, nil)
		if err != nil {
			msg := err.Error()
			if strings.HasPrefix(msg, "config "+file+": ") && len(msg) > len("config "+file+": ") {
				return
			}
			var errs []error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				if ke, ok := errors.AsType[*KeyError](e); !ok || ke.Key == "" || ke.Reason == "" {
					t.Fatalf("error %q names neither the file nor a key", msg)
				}
			}
			if len(errs) == 0 {
				t.Fatalf("error %q names neither the file nor a key", msg)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("loaded config does not validate: %v", err)
		}
		again, err := Load(file, nil, nil)
		if err != nil || !reflect.DeepEqual(cfg, again) {
			t.Fatalf("second load differs: %+v, %v; first %+v", again, err, cfg)
		}
	})
}
