package cluster

// idKey is an id's bytes held in the entity it names, so that an index
// that finds the entity by a hash compares the id (in full: a hash never
// decides alone) on the entity's own cache lines. The id string's bytes
// are an allocation of their own, a cache miss of their own on every
// look-up. key[0] is the length, with idKeyPrefixed set when the id starts
// with the index's prefix, which is then left out; key[1:] the bytes.
// key[0] == 0 when the id does not fit (or is empty): the id string is
// compared instead.
type idKey [32]byte

const (
	idKeyPrefixed = 0x80
	// attemptPrefix starts every attempt id YARN makes; an attempt id that
	// starts with it is held without it, so the ids of real clusters
	// (about 37 bytes: attempt_1763719200000_0001_m_000045_0) fit.
	attemptPrefix = "attempt_"
)

// set makes k hold id, without prefix if id starts with it and is too long
// to fit whole.
func (k *idKey) set(id, prefix string) {
	var flag byte
	if len(id) >= len(k) && prefix != "" && len(id) >= len(prefix) && id[:len(prefix)] == prefix {
		id, flag = id[len(prefix):], idKeyPrefixed
	}
	if len(id) >= len(k) || len(id) == 0 {
		k[0] = 0
		return
	}
	copy(k[1:], id)
	k[0] = byte(len(id)) | flag
}

// is reports whether id is the id k was set from with prefix; full is that
// id, compared when k does not hold it.
func (k *idKey) is(id, full, prefix string) bool {
	n := int(k[0])
	switch {
	case n == 0:
		return full == id
	case n&idKeyPrefixed != 0:
		n &^= idKeyPrefixed
		return len(id) == len(prefix)+n && string(k[1:1+n]) == id[len(prefix):] && id[:len(prefix)] == prefix
	}
	return len(id) == n && string(k[1:1+n]) == id
}
