import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
export const probe = [Injectable, randomUUID, Date.now()];
