//go:build cgo

package store

/*
typedef struct sqlite3 sqlite3;
extern int sqlite3_db_config(sqlite3*, int op, ...);
extern int sqlite3_auto_extension(void (*)(void));

// SQLITE_DBCONFIG_ENABLE_QPSG (sqlite3.h); declared here so the package
// needs no copy of the header, as vibe_keep_freed_memory needs none.
#define DBCONFIG_ENABLE_QPSG 1007

// vibe_stable_plans runs on every new connection (an auto extension).
static int vibe_stable_plans(sqlite3 *db, char **err, const void *api) {
	(void)err; (void)api;
	return sqlite3_db_config(db, DBCONFIG_ENABLE_QPSG, 1, (int*)0);
}

static int vibe_register_stable_plans(void) {
	return sqlite3_auto_extension((void (*)(void))vibe_stable_plans);
}
*/
import "C"

// stablePlans turns on SQLite's query planner stability guarantee for every
// connection the process opens from now on: a plan no longer depends on the
// values bound to its parameters. Without it SQLite marks a statement for
// re-preparing when its plan looked at a bound value (a LIMIT ?, a
// "col = ?" the planner weighs, a partial index's WHERE), and the driver
// clears the bindings before every run of a cached statement, which
// re-prepares every such statement on every call: 5 to 25 µs a query, most
// of SessionStart's SQL time on an empty database (see
// BenchmarkSessionStartQueries). Queries that need a partial index state
// its WHERE in SQL (AddSpine's lookup by tool_use_id). Registering fails
// only out of memory; plans then stay as they were: slower, not wrong.
func stablePlans() { C.vibe_register_stable_plans() }
