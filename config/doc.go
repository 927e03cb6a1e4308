// Package config loads rmsidecar's configuration: built-in defaults, then a
// YAML file, then RMSIDECAR_* environment variables, then command-line flags
// (each layer overrides the one before), and validates it at start so a bad
// setting fails fast with the key and the reason
// ("kafka.brokers[0]: not host:port").
//
// The annotated example config is example.yaml in this directory; it is
// embedded and tested, so it cannot drift from the code.
package config
