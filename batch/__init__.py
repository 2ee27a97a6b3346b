"""Everything around the kernels: Parquet schemas, streaming, quarantine, engines, CLI."""
