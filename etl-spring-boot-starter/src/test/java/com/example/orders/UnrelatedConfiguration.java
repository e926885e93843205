package com.example.orders;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Something the application has that a pipeline slice must not load. */
@Configuration(proxyBeanMethods = false)
public class UnrelatedConfiguration {

    @Bean
    String needsADatabase() {
        throw new IllegalStateException("the slice must not load UnrelatedConfiguration");
    }
}
