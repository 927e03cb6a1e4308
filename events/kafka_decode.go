package events

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// decodeFast decodes the common case of a Kafka event quickly: a flat JSON
// object whose values are plain strings, numbers and booleans under known
// keys (heartbeats and progress reports, most of the stream). It fills the
// same wire form Decode fills and runs the same validation, so a result it
// returns is the one Decode would return. At anything else (nested values,
// escapes, non-ASCII, null, unknown or differently cased keys, a number
// where encoding/json would object) it reports ok=false and the caller
// uses Decode, which also produces every error message.
func decodeFast(data []byte) (ev Event, err error, ok bool) {
	return decodeFastWith(data, new(flatValues))
}

// decodeFastWith is decodeFast with the scalar values held in v (which the
// returned Event never points into, so v can be reused).
func decodeFastWith(data []byte, v *flatValues) (ev Event, err error, ok bool) {
	err, ok = decodeFastInto(data, v, &ev)
	return ev, err, ok
}

// decodeFastInto is decodeFastWith writing the event into *ev, which it
// leaves untouched when ok is false: no copies of the (large) Event.
func decodeFastInto(data []byte, v *flatValues, ev *Event) (err error, ok bool) {
	var (
		w wire
		s = scanner{b: data}
	)
	s.space()
	if !s.consume('{') {
		return nil, false
	}
	s.space()
	if s.consume('}') {
		return nil, false // empty object: let Decode name the missing field
	}
	for {
		s.space()
		key, kok := s.raw()
		if !kok {
			return nil, false
		}
		s.space()
		if !s.consume(':') {
			return nil, false
		}
		s.space()
		if !v.set(&w, key, &s) {
			return nil, false
		}
		s.space()
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			break
		}
		return nil, false
	}
	s.space()
	if s.i != len(s.b) {
		return nil, false
	}
	return w.eventInto(ev), true
}

// flatValues holds the scalar values a wire points to: one allocation per
// event instead of one per field.
type flatValues struct {
	v, vcores, memoryMB, cpuMHz, usedVCores, usedMemoryMB, running, maps, reduces, priority, partition, mapsFetched, mapsTotal int
	ts, recordsDone, recordsTotal, bytesRead                                                                                   int64
	powerIdle, powerMax, load1, cpuUtil, diskR, diskW, netRx, netTx, progress, phaseProgress                                   float64
	speculative                                                                                                                bool
	strs                                                                                                                       [18]string
}

func (v *flatValues) set(w *wire, key []byte, s *scanner) bool {
	str := func(slot int, p **string) bool {
		raw, ok := s.raw()
		if !ok {
			return false
		}
		// A value equal to the one this slot held in the message before
		// (a MessageDecoder's scratch outlives a message) is that string
		// again, not a new one: the app of a run of progress reports (the
		// bridge sends them app by app, sorted), a task's own id in its
		// events. Strings are immutable, so events may share one.
		if string(raw) != v.strs[slot] {
			v.strs[slot] = intern(raw)
		}
		*p = &v.strs[slot]
		return true
	}
	integer := func(dst *int, p **int) bool {
		n, ok := s.integer()
		if !ok || n != int64(int(n)) {
			return false
		}
		*dst = int(n)
		*p = dst
		return true
	}
	integer64 := func(dst *int64, p **int64) bool {
		n, ok := s.integer()
		if !ok {
			return false
		}
		*dst = n
		*p = dst
		return true
	}
	float := func(dst *float64, p **float64) bool {
		f, ok := s.float()
		if !ok {
			return false
		}
		*dst = f
		*p = dst
		return true
	}
	switch string(key) { // no allocation: the compiler switches on the bytes
	case "v":
		return integer(&v.v, &w.V)
	case "id":
		return str(0, &w.ID)
	case "type":
		return str(1, &w.Type)
	case "ts":
		return integer64(&v.ts, &w.TS)
	case "node":
		return str(2, &w.Node)
	case "rack":
		return str(3, &w.Rack)
	case "vcores":
		return integer(&v.vcores, &w.VCores)
	case "memory_mb":
		return integer(&v.memoryMB, &w.MemoryMB)
	case "cpu_mhz":
		return integer(&v.cpuMHz, &w.CPUMHz)
	case "power_idle_w":
		return float(&v.powerIdle, &w.PowerIdleW)
	case "power_max_w":
		return float(&v.powerMax, &w.PowerMaxW)
	case "used_vcores":
		return integer(&v.usedVCores, &w.UsedVCores)
	case "used_memory_mb":
		return integer(&v.usedMemoryMB, &w.UsedMemoryMB)
	case "load1":
		return float(&v.load1, &w.Load1)
	case "cpu_util":
		return float(&v.cpuUtil, &w.CPUUtil)
	case "disk_read_bps":
		return float(&v.diskR, &w.DiskReadBps)
	case "disk_write_bps":
		return float(&v.diskW, &w.DiskWriteBps)
	case "net_rx_bps":
		return float(&v.netRx, &w.NetRxBps)
	case "net_tx_bps":
		return float(&v.netTx, &w.NetTxBps)
	case "running_containers":
		return integer(&v.running, &w.RunningContainers)
	case "reason":
		return str(4, &w.Reason)
	case "app":
		return str(5, &w.App)
	case "name":
		return str(6, &w.Name)
	case "queue":
		return str(7, &w.Queue)
	case "user":
		return str(8, &w.User)
	case "job_type":
		return str(9, &w.JobType)
	case "maps":
		return integer(&v.maps, &w.Maps)
	case "reduces":
		return integer(&v.reduces, &w.Reduces)
	case "priority":
		return integer(&v.priority, &w.Priority)
	case "utility":
		return str(10, &w.Utility)
	case "state":
		return str(11, &w.State)
	case "task":
		return str(12, &w.Task)
	case "kind":
		return str(13, &w.Kind)
	case "partition":
		return integer(&v.partition, &w.Partition)
	case "attempt":
		return str(14, &w.Attempt)
	case "container":
		return str(15, &w.Container)
	case "speculative":
		b, ok := s.boolean()
		if !ok {
			return false
		}
		v.speculative = b
		w.Speculative = &v.speculative
		return true
	case "locality":
		return str(16, &w.Locality)
	case "progress":
		return float(&v.progress, &w.Progress)
	case "phase":
		return str(17, &w.Phase)
	case "phase_progress":
		return float(&v.phaseProgress, &w.PhaseProgress)
	case "records_done":
		return integer64(&v.recordsDone, &w.RecordsDone)
	case "records_total":
		return integer64(&v.recordsTotal, &w.RecordsTotal)
	case "bytes_read":
		return integer64(&v.bytesRead, &w.BytesRead)
	case "maps_fetched":
		return integer(&v.mapsFetched, &w.MapsFetched)
	case "maps_total":
		return integer(&v.mapsTotal, &w.MapsTotal)
	}
	// labels, input_paths, features, splits, phase_ms, partitions (nested
	// values) and unknown keys: encoding/json's rules apply.
	return false
}

// scanner reads the subset of JSON decodeFast accepts.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	if s.i < len(s.b) && s.b[s.i] > ' ' { // the usual case: no white space
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// raw reads a string of printable ASCII without escapes and returns its
// bytes (not copied).
func (s *scanner) raw() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.i
	// Eight bytes at a time while eight remain: the first byte that is a
	// quote, a backslash, a control character or not ASCII decides, as in
	// the loop below (the masks may also flag bytes after it, never before).
	for s.i+8 <= len(s.b) {
		x := binary.LittleEndian.Uint64(s.b[s.i:])
		m := zeroBytes(x^(lsb*'"')) | zeroBytes(x^(lsb*'\\')) | ((x - lsb*0x20) &^ x) | x
		m &= msb
		if m == 0 {
			s.i += 8
			continue
		}
		s.i += bits.TrailingZeros64(m) / 8
		if s.b[s.i] != '"' {
			return nil, false
		}
		out := s.b[start:s.i]
		s.i++
		return out, true
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			out := s.b[start:s.i]
			s.i++
			return out, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

const (
	lsb = 0x0101010101010101 // the low bit of every byte
	msb = 0x8080808080808080 // the high bit of every byte
)

// zeroBytes has the high bit set in the lowest zero byte of x (and maybe
// in higher bytes, where a borrow ran; never in a lower byte), and in no
// byte when x has no zero byte. Only the high bits count.
func zeroBytes(x uint64) uint64 { return (x - lsb) &^ x }

// intern returns the shared copy of the values that repeat in every event
// (types, phases, kinds, states, localities) and a new string otherwise.
func intern(b []byte) string {
	switch string(b) {
	case string(NodeHeartbeat):
		return string(NodeHeartbeat)
	case string(TaskProgress):
		return string(TaskProgress)
	case string(ContainerAllocated):
		return string(ContainerAllocated)
	case string(TaskFinished):
		return string(TaskFinished)
	case string(TaskPending):
		return string(TaskPending)
	case PhaseMap:
		return PhaseMap
	case PhaseSort:
		return PhaseSort
	case PhaseShuffle:
		return PhaseShuffle
	case PhaseMerge:
		return PhaseMerge
	case PhaseReduce:
		return PhaseReduce
	case StateSucceeded:
		return StateSucceeded
	case string(NodeLocal):
		return string(NodeLocal)
	case string(RackLocal):
		return string(RackLocal)
	case string(OffRack):
		return string(OffRack)
	}
	return string(b)
}

// number returns the text of a JSON number and whether it is an integer
// (no fraction, no exponent).
func (s *scanner) number() (text []byte, integer bool, ok bool) {
	start := s.i
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false, false
	}
	integer = true
	if s.consume('.') {
		integer = false
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		integer = false
		s.i++
		if !s.consume('+') {
			s.consume('-')
		}
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	return s.b[start:s.i], integer, true
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// integer reads a number that encoding/json would store in an integer field.
func (s *scanner) integer() (int64, bool) {
	text, isInt, ok := s.number()
	if !ok || !isInt {
		return 0, false
	}
	if len(text) <= 18 { // at most 18 digits: cannot overflow
		digits, neg := text, text[0] == '-'
		if neg {
			digits = text[1:]
		}
		var n int64
		for _, c := range digits { // number checked they are digits
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(text), 10, 64)
	return n, err == nil
}

func (s *scanner) float() (float64, bool) {
	text, _, ok := s.number()
	if !ok {
		return 0, false
	}
	if f, ok := smallDecimal(text); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(string(text), 64)
	return f, err == nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// smallDecimal converts a JSON number of at most 15 digits and no exponent
// (0.42, 12.5, 3): its digits as an integer and the power of ten to divide
// by are both exact in a float64, so the quotient is the correctly rounded
// value, the one strconv.ParseFloat returns. Anything else reports false.
func smallDecimal(text []byte) (float64, bool) {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	if len(text) > 16 { // 15 digits and a point
		return 0, false
	}
	var mant int64
	frac, point := 0, false
	for _, c := range text {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + int64(c-'0')
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default: // an exponent
			return 0, false
		}
	}
	if len(text)-btoi(point) > 15 {
		return 0, false
	}
	f := float64(mant) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *scanner) boolean() (bool, bool) {
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// DecodeMessage decodes a Kafka message value: the fast path for flat
// events, Decode for everything else. Results and errors equal Decode's.
func DecodeMessage(data []byte) (Event, error) {
	if ev, err, ok := decodeFast(data); ok {
		return ev, err
	}
	return Decode(data)
}

// MessageDecoder is DecodeMessage with its scratch space kept between
// calls: one allocation less per message on a consumer's hot path. It is
// not safe for concurrent use (a partition claim owns one).
type MessageDecoder struct{ v flatValues }

// Decode is DecodeMessage.
func (d *MessageDecoder) Decode(data []byte) (Event, error) {
	if ev, err, ok := decodeFastWith(data, &d.v); ok {
		return ev, err
	}
	return Decode(data)
}

// DecodeInto is Decode writing the event into *ev (all of it; the zero
// Event on error), so a consumer decoding into a reused batch copies no
// Event around.
func (d *MessageDecoder) DecodeInto(data []byte, ev *Event) error {
	if err, ok := decodeFastInto(data, &d.v, ev); ok {
		return err
	}
	var err error
	*ev, err = Decode(data)
	return err
}
