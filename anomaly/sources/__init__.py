"""Reading a scan's source data: a table or a path for one period, with errors that name the
cause (a missing filesystem, nanosecond parquet timestamps) and what fixes it."""
