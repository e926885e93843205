package com.example.tables;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A user's application with several ClickHouse tables: the slice test finds it and scans this package. */
@SpringBootApplication
public class TablesApplication {}
