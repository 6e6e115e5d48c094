package store

import "context"

// PreToolProbe answers in one statement what a PreToolUse hook would
// otherwise ask in three: whether the project has an open HALT alert,
// whether target (mistake.Target's spelling) has a recorded mistake, and
// whether the project has a brief. The hook reads the rows only for what is
// there. It runs on every tool call, and in a process that sat idle a
// moment before each statement costs tens of microseconds.
func (s *Store) PreToolProbe(ctx context.Context, project, target string) (halts, mistakes, brief bool, err error) {
	err = s.db.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM observer_alerts WHERE project_path = ?1 AND resolved = 0 AND level = 'HALT'),
       ?2 <> '' AND EXISTS (SELECT 1 FROM mistakes WHERE project_path = ?1 AND target = ?2),
       EXISTS (SELECT 1 FROM briefs WHERE project_path = ?1)`, project, target).Scan(&halts, &mistakes, &brief)
	return halts, mistakes, brief, classify("probe the project's state", err)
}
