"""What every job shares to read and write data, knowing nothing of cards or games.

- ``storage``: paths and ``s3://`` URIs through pyarrow's file systems; files published whole
  (a temporary name, then a rename or copy) or not at all.
- ``lists``: Arrow columns to numpy (offsets and validity at every level, sliced and chunked
  arrays, every list and string layout), and numpy back to Arrow lists.
- ``pycolumns``: Arrow columns built from numpy buffers, without ``pa.array`` (which imports pandas);
  ``columns``: a text-type check and fixed-size list columns, without numba.
- ``progress``: the progress bar on a terminal, a log line every ~10 s elsewhere.
- ``lifecycle``: worker processes, Ctrl-C and SIGTERM, parents that die.
- ``errors``: :class:`~cardbatch.batch.io.errors.InputError`, input a job cannot read (exit 2).
- ``owned``: which files a command may write (an input is never an output; a file without the
  command's mark is the user's); ``compiling``: one line on stderr when a command stops to compile.
"""
