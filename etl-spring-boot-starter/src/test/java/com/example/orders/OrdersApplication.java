package com.example.orders;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A user's application: the slice test finds it and scans this package. */
@SpringBootApplication
public class OrdersApplication {}
