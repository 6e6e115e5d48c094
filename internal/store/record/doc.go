// Package record holds the records vibe keeps: sessions and what they saw,
// spine entries, claim events, gate checks and their outcomes, observer
// alerts, memories and their vectors, literature searches, serendipity seeds,
// reviewer reports, calibration entries, briefs, downloads and the counts
// the viewer and `vibe status` show. They are plain data with the few pure
// functions that define them (a memory's default trust and content hash).
//
// It imports only the standard library: the store (internal/store) writes
// and reads these records in SQL, the packages that decide what to record
// (the hook handlers, gate, calibrate, observer, recall …) build and read
// them, and neither side has to import the other to share a type. It must
// not import any vibe package, database driver or policy.
package record
