"""The model of the program the rules ask: values, their order, and per-function summaries."""
