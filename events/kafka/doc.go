// Package kafka carries events v1 over Kafka with IBM/sarama.
//
// GroupConsumer runs a consumer group (the outer Consume loop of sarama's
// example) and feeds decoded events to a Feed (the live loop) at least once:
// it commits only offsets the feed has applied and checkpointed, on a timer,
// on rebalance and at shutdown. Messages that do not decode go to a
// dead-letter topic with their origin (topic, partition, offset) and the
// error in headers, are counted by reason, and never stop the stream.
// ProduceLog writes a JSONL log to a topic keyed by Event.Key, optionally at
// the log's own pace. Client holds the connection settings (brokers,
// protocol version, TLS, SASL/SCRAM) that SaramaConfig turns into a
// sarama.Config.
//
// It is separate from package events so that the schema, which every policy
// imports, stays free of Kafka code.
package kafka
