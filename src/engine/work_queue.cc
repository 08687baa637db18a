// stub; being written
