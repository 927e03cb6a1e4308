package cluster

import "hash/maphash"

// An app finds its tasks by id through taskSlots, an open-addressing table
// of positions in Tasks (k: Tasks[k-1]; 0: empty) with linear probing, in
// place of a map[string]*Task per app. At 2,000 apps of 55 tasks the maps
// held about 2.2 KB each (4.5 MB); the table is 4 bytes a slot at a load of
// at most one half (512 bytes for 55 tasks). A task's id is compared in full
// on every probe that reaches it: the table holds no hashes. Tasks are never
// removed from an app (a forgotten app goes whole), so no deletion is needed.

// Task returns the app's task with the given id.
func (a *App) Task(id string) *Task {
	if len(a.taskSlots) == 0 {
		return nil
	}
	mask := uint64(len(a.taskSlots) - 1)
	for i := maphash.String(a.seed, id) & mask; ; i = (i + 1) & mask {
		k := a.taskSlots[i]
		if k == 0 {
			return nil
		}
		if t := a.Tasks[k-1]; t.ID == id {
			return t
		}
	}
}

// indexLast indexes the task just appended to a.Tasks, whose id no task of
// a has.
func (a *App) indexLast() {
	if 2*len(a.Tasks) > len(a.taskSlots) {
		size := max(8, len(a.taskSlots))
		for size < 2*len(a.Tasks) {
			size *= 2
		}
		a.taskSlots = make([]uint32, size)
		for k := range a.Tasks {
			a.slotTask(k)
		}
		return
	}
	a.slotTask(len(a.Tasks) - 1)
}

// slotTask puts Tasks[k] into the first free slot of its probe run.
func (a *App) slotTask(k int) {
	mask := uint64(len(a.taskSlots) - 1)
	i := maphash.String(a.seed, a.Tasks[k].ID) & mask
	for a.taskSlots[i] != 0 {
		i = (i + 1) & mask
	}
	a.taskSlots[i] = uint32(k + 1)
}
