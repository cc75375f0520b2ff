-- A large file is loaded in chunks of lines, each committed in its own
-- transaction together with the file's counts so far: `lines_done` is the
-- last line number the committed chunks cover (0: none yet). A run processed
-- again (a job retry, a restart after kill -9) goes on after that line, so
-- every chunk is stored once and the counts equal an uninterrupted run's.
ALTER TABLE ingest_run_files ADD COLUMN lines_done BIGINT DEFAULT 0;
