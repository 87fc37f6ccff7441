"""Page reading with MinerU2.5: preprocessing, numpy engine, tokenizer, generation."""
