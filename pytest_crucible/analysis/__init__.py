"""Analysis (layer 7): reports (json, md, html, charts), statistics, comparing runs, pairwise ratings."""
